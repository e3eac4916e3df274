"""Tensor-manipulation kernels: reshaping, slicing, joining, padding, and shape/constant sources.

Several ops moved an attribute to an input of the same name (Reshape's ``shape`` at 5, Squeeze's
and Unsqueeze's ``axes`` at 13, Slice's ``starts``/``ends``/``axes`` at 10, Split's ``split`` at
13); one function serves both forms, taking the attr as a keyword and the input positionally.
Shapes, axes and indices arrive as int64 arrays or lists and are turned into Python ints before
use. Kernels may return views of their inputs, never modified ones.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from npu_emu.op_impl.axis import check_indices, checked_axis
from npu_emu.op_impl.elementwise import one_output
from npu_emu.op_impl.in_place import fits
from npu_emu.op_impl.registry import kernel

Ints = np.ndarray | Sequence[int]


def _ints(values: Ints) -> list[int]:
    # a scalar is one value; tolist makes the Python numbers at once, not one numpy scalar each
    return [int(v) for v in np.asarray(values).reshape(-1).tolist()]


@one_output("Reshape")
def reshape(data: np.ndarray, shape: Ints, *, allowzero: int = 0) -> np.ndarray:
    # A 0 copies the input's dim (unless allowzero, 14+); numpy infers the -1.
    dims = _ints(shape)
    check_reshape_dims(dims)
    if not allowzero:
        past = [i for i, d in enumerate(dims) if d == 0 and i >= data.ndim]
        if past:
            raise ValueError(f"shape {dims}: the 0 at index {past[0]} copies data's dim "
                             f"{past[0]}, and data {list(data.shape)} has {data.ndim}")
        dims = [data.shape[i] if d == 0 else d for i, d in enumerate(dims)]
    return data.reshape(dims)


def check_reshape_dims(dims: list[int]) -> None:
    """A Reshape's dims are -1 or more: numpy reads any negative dim as the one it infers, and
    InferShape took [-2, -3] for [2, 3]'s 6 elements."""
    if min(dims, default=0) < -1:
        raise ValueError(f"shape {dims} holds {min(dims)}, below -1")


@one_output("Flatten")
def flatten(data: np.ndarray, *, axis: int = 1) -> np.ndarray:
    # Python slicing gives ONNX's meaning of a negative axis (11+); axis may be the rank.
    axis = checked_axis(axis, data.ndim, last=data.ndim)
    return data.reshape(math.prod(data.shape[:axis]), math.prod(data.shape[axis:]))


@one_output("Transpose", writes_out=True)
def transpose(data: np.ndarray, *, perm: Sequence[int] | None = None,
              out: np.ndarray | None = None) -> np.ndarray:
    view = np.transpose(data, perm)  # no perm: reverse the dims, as numpy does
    dst = fits(out, view.shape, view.dtype, data)
    if dst is None:
        return view
    np.copyto(dst, view)
    return dst


@one_output("Concat", writes_out=True)
def concat(*inputs: np.ndarray, axis: int = 1, out: np.ndarray | None = None) -> np.ndarray:
    # axis 1 is opset 1's default; 4+ requires the attr.
    shape = list(inputs[0].shape)
    shape[axis] = sum(x.shape[axis] for x in inputs)
    dst = fits(out, shape, np.result_type(*inputs), *inputs)
    return np.concatenate(inputs, axis=axis, out=dst)


@kernel("Split")
def split_(data: np.ndarray, split: Ints | None = None, *, axis: int = 0,
           num_outputs: int | None = None) -> tuple[np.ndarray, ...]:
    """Without ``split``, cut into ``num_outputs`` chunks of ceil(n / num_outputs), the last one
    smaller (opset 18). Before 18 the count is the node's number of outputs, which a kernel does
    not see: the caller passes it as ``num_outputs``."""
    axis = checked_axis(axis, data.ndim)
    n = data.shape[axis]
    if split is None:
        if num_outputs is None:
            raise ValueError("Split without `split` needs num_outputs (the node's output count)")
        chunk = -(-n // num_outputs)
        split = [chunk] * (num_outputs - 1) + [n - chunk * (num_outputs - 1)]
    sizes = _ints(split)
    if sum(sizes) != n or min(sizes) < 0:  # e.g. 7 into 5 chunks of 2 leaves -1 for the last
        raise ValueError(f"split sizes {sizes} do not cut dim {axis} of size {n}")
    return tuple(np.split(data, np.cumsum(sizes)[:-1], axis=axis))


@one_output("Squeeze")
def squeeze(data: np.ndarray, axes: Ints | None = None) -> np.ndarray:
    return np.squeeze(data, None if axes is None else tuple(_ints(axes)))


@one_output("Unsqueeze")
def unsqueeze(data: np.ndarray, axes: Ints) -> np.ndarray:
    # Negative axes count from the end of the output (11+). A reshape: np.expand_dims's own
    # checks cost three times as much (DenseNet's 242 Unsqueezes of its BN parameters).
    axes = _ints(axes)
    rank = data.ndim + len(axes)
    new = sorted(checked_axis(a, rank, of="output") for a in axes)
    if len(set(new)) < len(new):
        raise ValueError(f"axes {axes} name one axis of the output twice")
    shape = list(data.shape)
    for a in new:
        shape.insert(a, 1)
    return data.reshape(shape)


@one_output("Gather")
def gather(data: np.ndarray, indices: np.ndarray, *, axis: int = 0) -> np.ndarray:
    axis = checked_axis(axis, data.ndim)
    check_indices(indices, data.shape[axis], f"axis {axis} of data {list(data.shape)}")
    return np.take(data, indices, axis=axis)  # negative indices count from the end in both


@one_output("Slice")
def slice_(data: np.ndarray, starts: Ints, ends: Ints, axes: Ints | None = None,
           steps: Ints | None = None) -> np.ndarray:
    # Python slices clamp out-of-range bounds (INT64_MAX ends, INT64_MIN ends with negative
    # steps) exactly as ONNX specifies, so each (start, end, step) maps to one slice.
    starts, ends = _ints(starts), _ints(ends)
    axes = range(len(starts)) if axes is None else _ints(axes)
    steps = [1] * len(starts) if steps is None else _ints(steps)
    index = [slice(None)] * data.ndim
    for axis, start, end, step in zip(axes, starts, ends, steps):
        index[axis] = slice(start, end, step)
    return data[tuple(index)]


def _pad(data: np.ndarray, pads: Ints, mode: str, value: object,
         axes: Ints | None = None) -> np.ndarray:
    pads = _ints(pads)
    axes = range(data.ndim) if axes is None else [a % data.ndim for a in _ints(axes)]
    width = [(0, 0)] * data.ndim
    for axis, (begin, end) in zip(axes, pad_widths(pads, len(axes))):
        padded_size(data.shape[axis], begin, end, axis, pads)
        width[axis] = (begin, end)
    # Negative pads crop; np.pad only grows.
    data = data[tuple(slice(-min(b, 0), d + min(e, 0)) for (b, e), d in zip(width, data.shape))]
    width = [(max(b, 0), max(e, 0)) for b, e in width]
    if mode == "constant":
        return np.pad(data, width, mode="constant", constant_values=value)
    return np.pad(data, width, mode=mode)  # reflect, edge, wrap (19+) mean the same in numpy


def pad_widths(pads: list[int], n_axes: int) -> list[tuple[int, int]]:
    """(begin, end) per padded axis: Pad's pads list all begins, then all ends."""
    if len(pads) != 2 * n_axes:
        raise ValueError(f"{len(pads)} pads for {n_axes} axes")
    return list(zip(pads[:n_axes], pads[n_axes:]))


def padded_size(size: int, begin: int, end: int, axis: int, pads: list[int]) -> int:
    """Axis ``axis`` of ``size`` padded (a negative pad crops); refused below 0: the kernel's
    crops would overlap into an empty axis, and InferShape would read a -1 as unknown."""
    if size + begin + end < 0:
        raise ValueError(f"pads {pads} leave axis {axis} of {size} at {size + begin + end}")
    return size + begin + end


@one_output("Pad", since=2)
def pad_2(data: np.ndarray, *, pads: Sequence[int], mode: str = "constant",
          value: float = 0.0) -> np.ndarray:
    return _pad(data, pads, mode, value)


@one_output("Pad", since=11)
def pad(data: np.ndarray, pads: np.ndarray, constant_value: np.ndarray | None = None,
        axes: np.ndarray | None = None, *, mode: str = "constant") -> np.ndarray:
    return _pad(data, pads, mode, 0 if constant_value is None else constant_value, axes)


@one_output("Tile", since=6)
def tile(data: np.ndarray, repeats: np.ndarray) -> np.ndarray:
    return np.tile(data, _ints(repeats))


@one_output("Expand")
def expand(data: np.ndarray, shape: np.ndarray) -> np.ndarray:
    # Broadcasting goes both ways: a 1 in `shape` keeps data's dim.
    return np.broadcast_to(data, np.broadcast_shapes(data.shape, tuple(_ints(shape))))


@one_output("Shape")
def shape(data: np.ndarray, *, start: int = 0, end: int | None = None) -> np.ndarray:
    return np.array(data.shape[start:end], dtype=np.int64)  # 15+ clamps start/end like Python


@one_output("Size")
def size(data: np.ndarray) -> np.ndarray:
    return np.array(data.size, dtype=np.int64)


@one_output("ConstantOfShape")
def constant_of_shape(shape: np.ndarray, *, value: np.ndarray | None = None) -> np.ndarray:
    fill = np.zeros(1, np.float32) if value is None else value
    return np.full(_ints(shape), fill.reshape(()), dtype=fill.dtype)


_CONSTANT_DTYPES = {"value_float": np.float32, "value_floats": np.float32,
                    "value_int": np.int64, "value_ints": np.int64}


@one_output("Constant")
def constant(**attr: object) -> np.ndarray:
    # Exactly one attr holds the value; the value_* forms (12+) carry their dtype in the name.
    (name, value), = attr.items()
    if name == "value":
        return value
    if name not in _CONSTANT_DTYPES:  # sparse_value, value_string(s)
        raise NotImplementedError(f"Constant with {name} is not supported")
    return np.array(value, dtype=_CONSTANT_DTYPES[name])


@one_output("Range")
def range_(start: np.ndarray, limit: np.ndarray, delta: np.ndarray, *,
           stash_type: int = 1) -> np.ndarray:
    # start + i * delta in Python's int or float (double), rounded to start's dtype once at
    # the end: half-precision steps would drift. (stash_type, opset 25, asks for at least
    # float for half types; double is that.)
    if not range_length(start, limit, delta):
        return np.empty(0, start.dtype)   # numpy's arange refuses (1e30, 5, 2) for its size
    return np.arange(start.item(), limit.item(), delta.item()).astype(start.dtype)


def range_length(start: np.ndarray, limit: np.ndarray, delta: np.ndarray) -> int:
    """Range's output length, max(ceil((limit - start) / delta), 0); a ValueError where there
    is none (numpy's would say "arange: cannot compute length", or "can only convert an array
    of size 1 to a Python scalar")."""
    bounds = (start, limit, delta)
    if any(b.size != 1 for b in bounds):
        raise ValueError(f"start, limit and delta of shapes {[list(b.shape) for b in bounds]} "
                         f"are not all scalars")
    start, limit, delta = (b.item() for b in bounds)
    if not all(math.isfinite(v) for v in (start, limit, delta)):
        raise ValueError(f"start {start}, limit {limit} and delta {delta} are not all finite")
    if delta == 0:
        raise ValueError("Range with delta 0")
    if all(isinstance(v, int) for v in (start, limit, delta)):
        n = max(-((start - limit) // delta), 0)   # exact: int64 bounds lose digits as floats
    else:
        n = max(math.ceil((limit - start) / delta), 0)
    if n >= 1 << 63:
        raise ValueError(f"start {start}, limit {limit} and delta {delta} make {n} elements, "
                         f"past int64")
    return n
