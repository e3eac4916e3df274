"""A faster constructor for the trace events emitted for every SQE, and for the compile's per-node
and per-edit events (NodeVisited, the graph's edits, pass begin/end); and for any other frozen
slotted dataclass made on a hot path (GE's GeTensorDesc, one per desc InferShape writes).

A frozen dataclass's generated ``__init__`` stores each field through ``object.__setattr__``;
storing through the slots' own descriptors is about a third cheaper, which is most of what an
observer handed events (the step gate, the timeline) costs the scheduler per SQE; a recorder is
handed records and builds none (docs/architecture.md, hot loops). The class stays a
frozen dataclass: equality, repr, ``describe()`` and the refusal of later assignment are unchanged.
"""
from __future__ import annotations

from dataclasses import MISSING, fields
from typing import TypeVar

T = TypeVar("T", bound=type)


def hot_event(cls: T) -> T:
    names = [f.name for f in fields(cls)]
    namespace: dict[str, object] = {}
    params = []
    for i, f in enumerate(fields(cls)):
        owner = next(c for c in cls.__mro__ if f.name in vars(c))
        namespace[f"_set{i}"] = vars(owner)[f.name].__set__
        if f.default_factory is not MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: a default factory is not supported")
        if f.default is MISSING:
            params.append(f.name)
        else:   # a field's default stays its default (dataclasses keep defaults last)
            namespace[f"_default{i}"] = f.default
            params.append(f"{f.name}=_default{i}")
    body = "\n".join(f"    _set{i}(self, {name})" for i, name in enumerate(names))
    exec(f"def __init__(self, {', '.join(params)}):\n{body}\n", namespace)
    cls.__init__ = namespace["__init__"]
    return cls
