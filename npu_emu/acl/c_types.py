"""The C types behind pyACL's Python arguments, each with the check its conversion makes.

pyACL hands every Python argument to a C API whose parameter has a C type: ``size_t``,
``int32_t``, a pointer, an opaque handle, a NUL-terminated path. A value that cannot become that
type (None, a str, a float or a list where an int goes, a negative size, a number past the type's
range, a path holding a NUL) is refused with ACL_ERROR_INVALID_PARAM before the API does
anything, as the C layer's own checks (ACL_REQUIRES_NOT_NULL, ACL_REQUIRES_POSITIVE) refuse a
null handle or a bad size. Each facade API annotates its parameters with these types, e.g.
``def malloc(size: Size, policy: Int32 = 0)``; ``acl_call`` reads the annotations once and
converts every call's arguments through them (npu_emu/acl/_call.py).
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Annotated, Any, Callable, Sequence

import numpy as np

from npu_emu.base.errors import ACL_ERROR_INVALID_PARAM, AclError, InvalidParamError
from npu_emu.core.kernel_task import TensorArg, tensor_arg


class ArgumentError(AclError):
    """A Python value that cannot become its parameter's C type."""

    code = ACL_ERROR_INVALID_PARAM


@dataclass(frozen=True)
class CType:
    """``convert`` returns the value the API receives, or raises ArgumentError."""

    name: str
    convert: Callable[[Any], Any]


def _integer(value: Any) -> int:
    if isinstance(value, float) or value is None:
        raise ArgumentError("not an int")
    try:
        return operator.index(value)   # int, bool, numpy integers; never str, float or list
    except TypeError:
        raise ArgumentError("not an int") from None


def _ranged(lo: int, hi: int, null: bool = True) -> Callable[[Any], int]:
    def convert(value: Any) -> int:
        n = _integer(value)
        if not lo <= n < hi:
            raise ArgumentError(f"{n} is out of range")
        if n == 0 and not null:
            raise ArgumentError("null")
        return n
    return convert


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ArgumentError("not a str")
    if "\0" in value:
        raise ArgumentError("holds a NUL character")
    return value


def _tensor_args(value: Any) -> tuple[TensorArg | None, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ArgumentError("not a sequence of (dev_ptr, shape, dtype)")
    args = []
    for entry in value:
        if entry is None:
            args.append(None)
            continue
        if isinstance(entry, (str, bytes)) or not isinstance(entry, Sequence) or len(entry) != 3:
            raise ArgumentError(f"{entry!r} is not a (dev_ptr, shape, dtype)")
        addr, shape, dtype = entry
        if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence):
            raise ArgumentError(f"shape {shape!r} is not a sequence of ints")
        try:
            args.append(tensor_arg(UINT64.convert(addr), [_integer(d) for d in shape],
                                   dtype))
        except InvalidParamError as exc:
            raise ArgumentError(str(exc)) from None
    return tuple(args)


def _outputs(value: Any) -> tuple[TensorArg, ...]:
    args = _tensor_args(value)
    if None in args:
        raise ArgumentError("an output cannot be absent (None)")
    return args   # type: ignore[return-value]


def _attrs(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise ArgumentError("not a dict of attribute names to values")
    return value


def _handles(value: Any) -> list[int]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ArgumentError("not a sequence of handles")
    return [HANDLE.convert(h) for h in value]


def _callable(value: Any) -> Callable[..., Any]:
    if not callable(value):
        raise ArgumentError("not callable")
    return value


def _sub_tasks(value: Any) -> list[dict]:
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, Sequence) or \
            not all(isinstance(entry, dict) for entry in value):
        raise ArgumentError("not a list of sub-task dicts")
    return list(value)


def _dtype(value: Any) -> np.dtype:
    try:
        dt = np.dtype(value)
    except (TypeError, ValueError):
        raise ArgumentError(f"{value!r} is not a numpy dtype") from None
    if dt.kind not in "biuf":
        raise ArgumentError(f"{dt} is not a numeric dtype")
    return dt


def _shape(value: Any) -> tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ArgumentError("not a sequence of ints")
    dims = tuple(_integer(d) for d in value)
    if any(d < 0 for d in dims):
        raise ArgumentError("a dim is negative")
    return dims


def _instance(cls: type) -> Callable[[Any], Any]:
    def convert(value: Any) -> Any:
        if not isinstance(value, cls):
            raise ArgumentError(f"not a {cls.__name__}")
        return value
    return convert


def _scalar(value: Any) -> int | float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise ArgumentError("not a number")
    return value


SIZE_T = CType("size_t", _ranged(0, 1 << 64))
POSITIVE_SIZE = CType("a positive size_t", _ranged(0, 1 << 64, null=False))  # ACL_REQUIRES_POSITIVE
INT32 = CType("int32_t", _ranged(-(1 << 31), 1 << 31))
UINT32 = CType("uint32_t", _ranged(0, 1 << 32))
UINT64 = CType("uint64_t (a pointer that may be NULL)", _ranged(0, 1 << 64))
POINTER = CType("a non-null pointer", _ranged(0, 1 << 64, null=False))
HANDLE = CType("a handle", _ranged(0, 1 << 64, null=False))
STREAM = CType("a stream handle (0: the default stream)", _ranged(0, 1 << 64))
TEXT = CType("a str without NUL", _text)
TENSOR_ARGS = CType("a list of (dev_ptr, shape, dtype) or None", _tensor_args)
OUTPUT_ARGS = CType("a list of (dev_ptr, shape, dtype)", _outputs)
ATTRS = CType("a dict of attributes or None", _attrs)
HANDLES = CType("a list of handles", _handles)
SUB_TASKS = CType("a list of sub-task dicts", _sub_tasks)
CALLBACK = CType("a callable", _callable)
DTYPE = CType("a numeric numpy dtype", _dtype)
SCALAR = CType("a number", _scalar)
SHAPE = CType("a sequence of non-negative ints", _shape)
NDARRAY = CType("a numpy array", _instance(np.ndarray))
BYTES = CType("bytes", _instance(bytes))
OPAQUE = CType("anything (passed through)", lambda value: value)

Size = Annotated[int, SIZE_T]
PositiveSize = Annotated[int, POSITIVE_SIZE]
Int32 = Annotated[int, INT32]
UInt32 = Annotated[int, UINT32]
UInt64 = Annotated[int, UINT64]
Ptr = Annotated[int, POINTER]
Handle = Annotated[int, HANDLE]
StreamHandle = Annotated[int, STREAM]
Text = Annotated[str, TEXT]
TensorArgs = Annotated[Sequence, TENSOR_ARGS]
OutputArgs = Annotated[Sequence, OUTPUT_ARGS]
Attrs = Annotated[dict, ATTRS]
Handles = Annotated[Sequence, HANDLES]
SubTasks = Annotated[Sequence, SUB_TASKS]
Callback = Annotated[Callable, CALLBACK]
DType = Annotated[Any, DTYPE]
Scalar = Annotated[Any, SCALAR]
Shape = Annotated[Sequence, SHAPE]
NDArray = Annotated[np.ndarray, NDARRAY]
Bytes = Annotated[bytes, BYTES]
Opaque = Annotated[Any, OPAQUE]
