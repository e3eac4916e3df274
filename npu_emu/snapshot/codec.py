"""The snapshot's object-graph codec: objects become plain data (JSON values, numpy arrays)
described by a schema of fields, and only data comes back.

Each saved class declares its fields and the kind of value each holds (a ``Spec``); an object
is saved as ``{"class": name, "fields": {...}}`` in one table, and references between objects
are indices into that table, so shared and cyclic structure (a stream and its device, a task and
its stream) survives. Loading creates each object with ``cls.__new__`` (no constructor runs,
nothing named by the file is imported or called), then checks every field against its spec
before setting it: a file that names a class the schema does not know, lacks or adds a field,
or holds a value of the wrong kind is a SnapshotError, never a half-restored runtime. Arrays
(device memory, host buffers, flag tables) travel beside the JSON, by name.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from npu_emu.base.errors import (ACL_ERROR_SNAPSHOT_BACKUP_FAILED,
                                 ACL_ERROR_SNAPSHOT_RESTORE_FAILED, AclError)


class SnapshotError(AclError):
    """A snapshot that cannot be saved, or a file that is not a valid one."""

    code = ACL_ERROR_SNAPSHOT_RESTORE_FAILED


def refuse(what: str) -> SnapshotError:
    return SnapshotError(f"not a valid snapshot: {what}")


class Encoder:
    def __init__(self, schema: dict[type, ClassSpec]) -> None:
        self.schema = schema
        self.objects: list[dict] = []
        self.arrays: dict[str, np.ndarray] = {}
        self._index: dict[int, int] = {}
        self._pending: list[Any] = []   # indexed, fields not yet encoded (no recursion: a chain
                                        # of streams and tasks may be thousands long)

    def encode(self, root: Any) -> int:
        index = self.ref(root)
        done = 0
        while done < len(self._pending):
            obj = self._pending[done]
            spec = self.schema[type(obj)]
            self.objects[self._index[id(obj)]]["fields"] = {
                name: field.encode(spec.get(obj, name), self)
                for name, field in spec.fields.items()}
            done += 1
        return index

    def ref(self, obj: Any) -> int:
        known = self._index.get(id(obj))
        if known is not None:
            return known
        spec = self.schema.get(type(obj))
        if spec is None:
            raise SnapshotError(f"snapshot: a {type(obj).__name__} cannot be saved",
                                ACL_ERROR_SNAPSHOT_BACKUP_FAILED)
        index = self._index[id(obj)] = len(self.objects)
        self._pending.append(obj)   # also keeps obj alive, so its id stays its own
        self.objects.append({"class": spec.name, "fields": None})
        return index

    def array(self, value: np.ndarray) -> str:
        key = f"a{len(self.arrays)}"
        self.arrays[key] = np.ascontiguousarray(value)
        return key


class Decoder:
    def __init__(self, schema: dict[type, ClassSpec], objects: Any,
                 arrays: Callable[[str], np.ndarray]) -> None:
        self.by_name = {spec.name: spec for spec in schema.values()}
        if not isinstance(objects, list):
            raise refuse("no object table")
        self.entries = objects
        self.array = arrays
        self.objects: list[Any] = []
        for i, entry in enumerate(objects):
            if not isinstance(entry, dict) or set(entry) != {"class", "fields"}:
                raise refuse(f"object {i} is not a class and its fields")
            spec = self.by_name.get(entry["class"]) if isinstance(entry["class"], str) else None
            if spec is None:
                raise refuse(f"object {i} is of unknown class {entry['class']!r}")
            self.objects.append(spec.cls.__new__(spec.cls))

    def fill(self) -> None:
        """Check and set every object's fields (all objects exist: references resolve), then
        let each class finish its objects (rebuild what is derived, check what must agree)."""
        for i, (entry, obj) in enumerate(zip(self.entries, self.objects)):
            spec = self.by_name[entry["class"]]
            fields = entry["fields"]
            if not isinstance(fields, dict) or set(fields) != set(spec.fields):
                raise refuse(f"object {i} ({spec.name}) does not have the fields "
                             f"{sorted(spec.fields)}")
            for name, value in spec.transient.items():   # first: a field may be a property
                object.__setattr__(obj, name, value())       # that stores into one
            for name, field in spec.fields.items():
                try:
                    value = field.decode(fields[name], self)
                except SnapshotError as exc:
                    raise refuse(f"{spec.name}.{name} of object {i}: {exc}") from None
                object.__setattr__(obj, name, value)
        for i, (entry, obj) in enumerate(zip(self.entries, self.objects)):
            after = self.by_name[entry["class"]].after
            if after is not None:
                try:
                    after(obj)
                except SnapshotError as exc:
                    raise refuse(f"object {i} ({entry['class']}): {exc}") from None

    def ref(self, data: Any, classes: tuple[type, ...]) -> Any:
        if isinstance(data, bool) or not isinstance(data, int) or \
                not 0 <= data < len(self.objects):
            raise SnapshotError(f"{data!r} is no object reference")
        obj = self.objects[data]
        if not isinstance(obj, classes):
            raise SnapshotError(f"object {data} is a {type(obj).__name__}, not a "
                                f"{' or '.join(c.__name__ for c in classes)}")
        return obj


# -- field specs -------------------------------------------------------------------------------
class Spec:
    def encode(self, value: Any, enc: Encoder) -> Any:
        raise NotImplementedError

    def decode(self, data: Any, dec: Decoder) -> Any:
        raise NotImplementedError


@dataclass(frozen=True)
class Prim(Spec):
    """A JSON scalar of one Python type (bool is not an int here)."""

    type: type

    def encode(self, value: Any, enc: Encoder) -> Any:
        return self.type(value)

    def decode(self, data: Any, dec: Decoder) -> Any:
        ok = isinstance(data, self.type) and (self.type is bool or not isinstance(data, bool))
        if self.type is float and isinstance(data, int) and not isinstance(data, bool):
            return float(data)
        if not ok:
            raise SnapshotError(f"{data!r} is not a {self.type.__name__}")
        return data


INT, FLOAT, STR, BOOL = Prim(int), Prim(float), Prim(str), Prim(bool)


@dataclass(frozen=True)
class Opt(Spec):
    spec: Spec

    def encode(self, value: Any, enc: Encoder) -> Any:
        return None if value is None else self.spec.encode(value, enc)

    def decode(self, data: Any, dec: Decoder) -> Any:
        return None if data is None else self.spec.decode(data, dec)


@dataclass(frozen=True)
class Seq(Spec):
    """A list (or, with ``tuple_``, a tuple) of one kind of item; ``size`` fixes its length."""

    item: Spec
    tuple_: bool = False
    size: int | None = None

    def encode(self, value: Any, enc: Encoder) -> Any:
        return [self.item.encode(v, enc) for v in value]

    def decode(self, data: Any, dec: Decoder) -> Any:
        if not isinstance(data, list) or (self.size is not None and len(data) != self.size):
            raise SnapshotError(f"not a list{'' if self.size is None else f' of {self.size}'}")
        items = [self.item.decode(v, dec) for v in data]
        return tuple(items) if self.tuple_ else items


def Tup(item: Spec, size: int | None = None) -> Seq:   # noqa: N802 - reads as a type
    return Seq(item, True, size)


@dataclass(frozen=True)
class Pair(Spec):
    """A 2-tuple whose items are of two kinds."""

    first: Spec
    second: Spec

    def encode(self, value: Any, enc: Encoder) -> Any:
        return [self.first.encode(value[0], enc), self.second.encode(value[1], enc)]

    def decode(self, data: Any, dec: Decoder) -> Any:
        if not isinstance(data, list) or len(data) != 2:
            raise SnapshotError(f"{data!r} is not a pair")
        return self.first.decode(data[0], dec), self.second.decode(data[1], dec)


@dataclass(frozen=True)
class Map(Spec):
    """A dict, saved as a list of [key, value] pairs (JSON keys are only strings)."""

    key: Spec
    value: Spec

    def encode(self, value: Any, enc: Encoder) -> Any:
        return [[self.key.encode(k, enc), self.value.encode(v, enc)] for k, v in value.items()]

    def decode(self, data: Any, dec: Decoder) -> Any:
        if not isinstance(data, list) or not all(isinstance(p, list) and len(p) == 2
                                                 for p in data):
            raise SnapshotError("not a list of [key, value] pairs")
        return {self.key.decode(k, dec): self.value.decode(v, dec) for k, v in data}


@dataclass(frozen=True)
class Ref(Spec):
    """Another object of the table, of one of ``classes`` (resolved lazily: the schema names
    classes defined after it)."""

    classes: Callable[[], tuple[type, ...]]

    def encode(self, value: Any, enc: Encoder) -> Any:
        return enc.ref(value)

    def decode(self, data: Any, dec: Decoder) -> Any:
        return dec.ref(data, self.classes())


@dataclass(frozen=True)
class Enum(Spec):
    cls: type[enum.Enum]

    def encode(self, value: Any, enc: Encoder) -> Any:
        return value.name

    def decode(self, data: Any, dec: Decoder) -> Any:
        if not isinstance(data, str) or data not in self.cls.__members__:
            raise SnapshotError(f"{data!r} is not a {self.cls.__name__}")
        return self.cls[data]


@dataclass(frozen=True)
class Array(Spec):
    """A numeric numpy array (or, with ``as_type``, a bytearray or bytes), saved beside the
    JSON under a name."""

    as_type: type | None = None

    def encode(self, value: Any, enc: Encoder) -> Any:
        if isinstance(value, (bytes, bytearray)):
            value = np.frombuffer(bytes(value), dtype=np.uint8)
        return enc.array(value)

    def decode(self, data: Any, dec: Decoder) -> Any:
        if not isinstance(data, str):
            raise SnapshotError(f"{data!r} names no array")
        array = dec.array(data)
        if self.as_type is None:
            return array
        if array.dtype != np.uint8 or array.ndim != 1:
            raise SnapshotError(f"array {data} is not bytes")
        return self.as_type(array.tobytes())


@dataclass(frozen=True)
class Inline(Spec):
    """A small value object (a dataclass), saved by its fields and made again by calling its
    class, so its own checks (__post_init__) run on what the file says."""

    cls: type
    fields: dict[str, Spec]
    make: Callable[..., Any] | None = None   # what makes one from its fields (default: cls)

    def encode(self, value: Any, enc: Encoder) -> Any:
        return {name: spec.encode(getattr(value, name), enc) for name, spec in self.fields.items()}

    def decode(self, data: Any, dec: Decoder) -> Any:
        if not isinstance(data, dict) or set(data) != set(self.fields):
            raise SnapshotError(f"not a {self.cls.__name__}'s fields {sorted(self.fields)}")
        values = {name: spec.decode(data[name], dec) for name, spec in self.fields.items()}
        try:
            return (self.make or self.cls)(**values)
        except AclError as exc:
            raise SnapshotError(str(exc)) from None


@dataclass(frozen=True)
class Value(Spec):
    """A kernel attribute or a compared scalar: JSON scalars, lists, string-keyed dicts and
    numeric arrays, nested; tuples and lists are told apart."""

    def encode(self, value: Any, enc: Encoder) -> Any:
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, np.generic):
            return {"np": [value.dtype.str, value.item()]}
        if isinstance(value, np.ndarray):
            return {"array": enc.array(value)}
        if isinstance(value, (list, tuple)):
            return {"list" if isinstance(value, list) else "tuple":
                    [self.encode(v, enc) for v in value]}
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            return {"dict": {k: self.encode(v, enc) for k, v in value.items()}}
        raise SnapshotError(f"snapshot: a {type(value).__name__} attribute cannot be saved",
                            ACL_ERROR_SNAPSHOT_BACKUP_FAILED)

    def decode(self, data: Any, dec: Decoder) -> Any:
        if data is None or isinstance(data, (bool, int, float, str)):
            return data
        if not isinstance(data, dict) or len(data) != 1:
            raise SnapshotError(f"{data!r} is not a value")
        (tag, inner), = data.items()
        if tag in ("list", "tuple") and isinstance(inner, list):
            items = [self.decode(v, dec) for v in inner]
            return items if tag == "list" else tuple(items)
        if tag == "dict" and isinstance(inner, dict):
            return {k: self.decode(v, dec) for k, v in inner.items()}
        if tag == "array" and isinstance(inner, str):
            return dec.array(inner)
        if tag == "np" and isinstance(inner, list) and len(inner) == 2:
            dtype = _numeric_dtype(inner[0])
            if isinstance(inner[1], (bool, int, float)):
                try:
                    return dtype.type(inner[1])
                except (OverflowError, ValueError, TypeError) as exc:
                    raise SnapshotError(f"{inner[1]!r} is not a {dtype}: {exc}") from None
        raise SnapshotError(f"{data!r} is not a value")


def _numeric_dtype(name: Any) -> np.dtype:
    try:
        dtype = np.dtype(name) if isinstance(name, str) else None
    except (TypeError, ValueError):
        dtype = None
    if dtype is None or dtype.kind not in "biufc":
        raise SnapshotError(f"{name!r} is not a numeric dtype")
    return dtype


@dataclass
class ClassSpec:
    """What of ``cls`` a snapshot holds: ``fields`` are saved and checked; ``transient`` ones
    belong to the run (a trace bus, cached views) and are made afresh on load."""

    cls: type
    fields: dict[str, Spec]
    transient: dict[str, Callable[[], Any]]
    name: str = ""
    getters: dict[str, Callable[[Any], Any]] | None = None   # how a field is read, if not as is
    after: Callable[[Any], None] | None = None   # finishes a loaded object; SnapshotError if bad

    def __post_init__(self) -> None:
        self.name = self.name or self.cls.__name__

    def get(self, obj: Any, name: str) -> Any:
        if self.getters and name in self.getters:
            return self.getters[name](obj)
        return getattr(obj, name)

