"""Reduction kernels: Reduce*, ArgMax/ArgMin, and the normalisers Softmax, LogSoftmax, Hardmax.

``axes`` moved from an attribute to an optional input (ReduceSum at opset 13, the others at 18)
without changing its name, so one function per op serves every version: the attr arrives as a
keyword, the input positionally. Results keep the input's dtype (numpy would widen int sums and
int means).
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

from npu_emu.op_impl.axis import checked_axis
from npu_emu.op_impl.elementwise import one_output

Reducer = Callable[..., np.ndarray]  # fn(x, axis=..., keepdims=...) in numpy's terms


def dtype_limits(dtype: np.dtype) -> tuple[object, object]:
    """(lowest, highest) value of ``dtype``: ONNX's max/min of an empty set. (ml_dtypes'
    bfloat16 is of kind "V".)"""
    if dtype.kind in "fV":
        return -np.inf, np.inf
    if dtype.kind == "b":
        return False, True
    info = np.iinfo(dtype)
    return info.min, info.max


def _log_sum_exp(x: np.ndarray, axis: tuple[int, ...] | None, keepdims: bool) -> np.ndarray:
    # Shift by the max so exp cannot overflow; an infinite max (or an empty set) shifts by 0.
    m = np.max(x, axis=axis, keepdims=True, initial=dtype_limits(x.dtype)[0])
    m = np.where(np.isfinite(m), m, 0).astype(x.dtype)
    s = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return s if keepdims else np.squeeze(s, axis)


_REDUCE: dict[str, Reducer] = {
    "ReduceSum": np.sum,
    "ReduceMean": np.mean,                                    # NaN for an empty set
    "ReduceProd": np.prod,
    "ReduceMax": lambda x, **kw: np.max(x, initial=dtype_limits(x.dtype)[0], **kw),
    "ReduceMin": lambda x, **kw: np.min(x, initial=dtype_limits(x.dtype)[1], **kw),
    "ReduceL1": lambda x, **kw: np.sum(np.abs(x), **kw),
    "ReduceL2": lambda x, **kw: np.sqrt(np.sum(np.square(x), **kw)),
    "ReduceSumSquare": lambda x, **kw: np.sum(np.square(x), **kw),
    "ReduceLogSum": lambda x, **kw: np.log(np.sum(x, **kw)),  # -inf for an empty set
    "ReduceLogSumExp": _log_sum_exp,
}


def _register_reduce(op: str, fn: Reducer) -> None:
    @one_output(op)
    def reduce(data: np.ndarray, axes: np.ndarray | Sequence[int] | None = None, *,
               keepdims: int = 1, noop_with_empty_axes: int = 0) -> np.ndarray:
        # No axes: all of them, or none with noop_with_empty_axes; reducing over none still
        # applies the elementwise part (ReduceSumSquare squares, ReduceLogSum takes the log).
        if axes is None or len(axes) == 0:
            axes = () if noop_with_empty_axes else None
        else:
            axes = tuple(int(a) for a in axes)
        return fn(data, axis=axes, keepdims=bool(keepdims)).astype(data.dtype, copy=False)


for _op, _fn in _REDUCE.items():
    _register_reduce(_op, _fn)


def _register_arg(op: str, fn: Callable[..., np.ndarray]) -> None:
    @one_output(op)
    def arg_extreme(data: np.ndarray, *, axis: int = 0, keepdims: int = 1,
                    select_last_index: int = 0) -> np.ndarray:
        # numpy finds the first extreme; the last one is the first along the flipped axis.
        i = fn(np.flip(data, axis) if select_last_index else data, axis=axis,
               keepdims=bool(keepdims))
        return (data.shape[axis] - 1 - i if select_last_index else i).astype(np.int64)


for _op, _fn in {"ArgMax": np.argmax, "ArgMin": np.argmin}.items():
    _register_arg(_op, _fn)


def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))  # shifted: exp cannot overflow
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def _hardmax(x: np.ndarray, axis: int) -> np.ndarray:
    y = np.zeros_like(x)  # one-hot at the first maximum
    np.put_along_axis(y, np.argmax(x, axis=axis, keepdims=True), 1, axis=axis)
    return y


_NORMALIZERS: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {
    "Softmax": _softmax,
    "LogSoftmax": log_softmax,
    "Hardmax": _hardmax,
}


def _register_normalizer(op: str, fn: Callable[[np.ndarray, int], np.ndarray]) -> None:
    def normalised(x: np.ndarray, axis: int) -> np.ndarray:
        # nothing to normalise: numpy's max and argmax refuse an empty axis
        return np.empty_like(x) if x.size == 0 else fn(x, axis)

    @one_output(op)
    def over_flattened_tail(x: np.ndarray, *, axis: int = 1) -> np.ndarray:
        # Opsets 1 and 11 view x as a matrix [prod(dims before axis), prod(dims from axis)] and
        # normalise each row, i.e. over all trailing dims at once (axis may be the rank).
        axis = checked_axis(axis, x.ndim, last=x.ndim)
        matrix = x.reshape(math.prod(x.shape[:axis]), math.prod(x.shape[axis:]))
        return normalised(matrix, 1).reshape(x.shape)

    @one_output(op, since=13)
    def over_axis(x: np.ndarray, *, axis: int = -1) -> np.ndarray:
        return normalised(x, checked_axis(axis, x.ndim))


for _op, _fn in _NORMALIZERS.items():
    _register_normalizer(_op, _fn)
