"""Indexing kernels: gather and scatter by index tensors, selection (Compress, NonZero, TopK,
Unique, OneHot), ReverseSequence and TensorScatter (ONNX default domain).

Each turns its index tensor into one numpy advanced index: GatherND's last index axis becomes
a tuple of index arrays, ScatterElements' indices replace one axis of a full ``np.indices``
grid. Negative indices count from the end, as numpy's advanced indexing reads them. Scatter
reductions use the ufunc's ``at``, which applies every duplicate index in order, as ONNX asks.
"""
from __future__ import annotations

import math

import numpy as np

from npu_emu.op_impl.axis import check_indices, checked_axis, outside
from npu_emu.op_impl.elementwise import one_output
from npu_emu.op_impl.registry import kernel
from npu_emu.op_impl.sequence_lens import check_sequence_lens

# ScatterND / ScatterElements `reduction` -> the ufunc whose .at folds duplicates in
_REDUCTIONS = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def _scatter(data: np.ndarray, index: tuple, updates: np.ndarray, reduction: str) -> np.ndarray:
    out = data.copy()
    if reduction == "none":
        out[index] = updates  # duplicates: the last write wins
    elif reduction in _REDUCTIONS:
        _REDUCTIONS[reduction].at(out, index, updates)
    else:
        raise ValueError(f"unknown reduction {reduction!r}; known: none, "
                         f"{', '.join(_REDUCTIONS)}")
    return out


def _element_index(data: np.ndarray, indices: np.ndarray, axis: int) -> tuple:
    """The advanced index that reads ``indices`` along ``axis`` of ``data`` and every other
    axis as is; indices of data's rank, as ONNX says (numpy would broadcast a lower one)."""
    if indices.ndim != data.ndim:
        raise ValueError(f"indices {list(indices.shape)} are not of data's rank "
                         f"({list(data.shape)})")
    axis = checked_axis(axis, data.ndim)
    if any(i > d for a, (i, d) in enumerate(zip(indices.shape, data.shape)) if a != axis):
        raise ValueError(f"indices {list(indices.shape)} are larger than data "
                         f"{list(data.shape)} off axis {axis}")
    check_indices(indices, data.shape[axis], f"axis {axis} of data {list(data.shape)}")
    grid = list(np.indices(indices.shape, sparse=True))
    grid[axis] = indices
    return tuple(grid)


@one_output("GatherElements")
def gather_elements(data: np.ndarray, indices: np.ndarray, *, axis: int = 0) -> np.ndarray:
    return data[_element_index(data, indices, axis)]


@one_output("ScatterElements")
def scatter_elements(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, *,
                     axis: int = 0, reduction: str = "none") -> np.ndarray:
    if updates.shape != indices.shape:
        raise ValueError(f"updates {list(updates.shape)} are not of the indices' shape "
                         f"{list(indices.shape)}")
    return _scatter(data, _element_index(data, indices, axis), updates, reduction)


one_output("Scatter")(scatter_elements)  # opsets 9-10: ScatterElements without reduction


@one_output("GatherND")
def gather_nd(data: np.ndarray, indices: np.ndarray, *, batch_dims: int = 0) -> np.ndarray:
    # The first batch_dims axes pair data and indices up; each index row of length k then
    # picks a slice data[b][i0, ..., ik-1].
    b, k = batch_dims, indices.shape[-1] if indices.ndim else data.ndim + 1
    if b + k > data.ndim or indices.shape[:b] != data.shape[:b]:
        raise ValueError(f"indices {list(indices.shape)} do not address data "
                         f"{list(data.shape)} with batch_dims {b}")
    _check_rows(indices, data.shape, b)
    n_batch = math.prod(data.shape[:b])
    rows = indices.reshape(n_batch, -1, k)
    flat = data.reshape(n_batch, *data.shape[b:])
    picked = flat[(np.arange(n_batch)[:, None], *np.moveaxis(rows, -1, 0))]
    return picked.reshape(indices.shape[:-1] + data.shape[b + k:])


@one_output("ScatterND")
def scatter_nd(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, *,
               reduction: str = "none") -> np.ndarray:
    k = indices.shape[-1] if indices.ndim else data.ndim + 1
    if k > data.ndim or updates.shape != indices.shape[:-1] + data.shape[k:]:
        raise ValueError(f"indices {list(indices.shape)} and updates {list(updates.shape)} do "
                         f"not address data {list(data.shape)} (updates: indices' shape but "
                         f"the last, then data's past the first indices.shape[-1] axes)")
    _check_rows(indices, data.shape, 0)
    return _scatter(data, tuple(np.moveaxis(indices, -1, 0)), updates, reduction)


def _check_rows(indices: np.ndarray, shape: tuple[int, ...], b: int) -> None:
    """GatherND's and ScatterND's index rows: element j of each indexes data's axis b + j."""
    for j in range(indices.shape[-1]):
        check_indices(indices[..., j], shape[b + j], f"axis {b + j} of data {list(shape)}")


@one_output("TensorScatter")
def tensor_scatter(past_cache: np.ndarray, update: np.ndarray,
                   write_indices: np.ndarray | None = None, *, axis: int = -2,
                   mode: str = "linear") -> np.ndarray:
    # Batch b's update rows go to past_cache[b] from write_indices[b] on along axis (a KV
    # cache append); "circular" wraps them around the cache's length.
    axis = checked_axis(axis, past_cache.ndim)
    n = update.shape[axis]
    start = np.zeros(past_cache.shape[0], np.int64) if write_indices is None else write_indices
    pos = start.reshape((-1,) + (1,) * (past_cache.ndim - 1)) \
        + np.arange(n).reshape((n,) + (1,) * (past_cache.ndim - axis - 1))
    if mode == "circular":
        pos = pos % past_cache.shape[axis]
    elif mode != "linear":
        raise ValueError(f"unknown mode {mode!r}; known: linear, circular")
    elif outside(pos, 0, past_cache.shape[axis]) is not None:
        raise ValueError(f"write_indices {start.reshape(-1).tolist()} and the update's {n} rows "
                         f"reach outside the cache's {past_cache.shape[axis]} on axis {axis}")
    out = past_cache.copy()
    np.put_along_axis(out, np.broadcast_to(pos, update.shape), update, axis)
    return out


@one_output("OneHot")
def one_hot(indices: np.ndarray, depth: np.ndarray, values: np.ndarray, *,
            axis: int = -1) -> np.ndarray:
    # A new axis of length depth; on_value where it equals the index (negative ones count
    # from depth; out-of-range ones match nothing), off_value elsewhere.
    d = np.asarray(depth).reshape(-1)[0]
    if not (np.isfinite(d) and 0 <= d < 1 << 63):
        raise ValueError(f"depth {d} is no count of classes")
    n = int(d)
    idx = np.asarray(indices).astype(np.int64)
    idx = np.where(idx < 0, idx + n, idx)
    axis %= idx.ndim + 1
    hot = np.expand_dims(idx, axis) == np.arange(n).reshape((n,) + (1,) * (idx.ndim - axis))
    return np.where(hot, values[1], values[0])


@one_output("Compress")
def compress(x: np.ndarray, condition: np.ndarray, *, axis: int | None = None) -> np.ndarray:
    # Without axis x is flattened first; a condition shorter than the axis drops the rest, and
    # one longer is cut to the axis, as onnxruntime cuts it (numpy's IndexError where it held a
    # True past the axis; the spec says nothing of it)
    length = x.size if axis is None else x.shape[checked_axis(axis, x.ndim)]
    return np.compress(condition.astype(bool).reshape(-1)[:length], x, axis=axis)


@one_output("NonZero")
def non_zero(x: np.ndarray) -> np.ndarray:
    # a scalar as one element of one axis: [1, 0 or 1], as onnxruntime gives it
    return np.array(np.nonzero(np.atleast_1d(x)), dtype=np.int64).reshape(max(x.ndim, 1), -1)


@kernel("TopK")
def top_k(x: np.ndarray, k: np.ndarray | int, *, axis: int = -1, largest: int = 1,
          sorted: int = 1) -> tuple[np.ndarray, np.ndarray]:  # noqa: A002 ONNX's name
    """k is an attr before opset 10, an input after. Equal values keep their index order, as
    ONNX asks (a stable sort; for the largest, one over the flipped axis, read backwards).
    Unsorted order is any order, so sorted order serves it too."""
    k = int(np.asarray(k).reshape(-1)[0])
    axis %= x.ndim
    if largest:
        n = x.shape[axis]
        order = n - 1 - np.flip(np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)
    else:
        order = np.argsort(x, axis=axis, kind="stable")
    top = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, top, axis), top.astype(np.int64)


@kernel("Unique")
def unique(x: np.ndarray, *, axis: int | None = None,
           sorted: int = 1) -> tuple[np.ndarray, ...]:  # noqa: A002 ONNX's name
    """Y, the index of each one's first occurrence, each element's index into Y, and the
    counts. Unsorted, Y is in order of first occurrence."""
    y, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                          return_counts=True, axis=axis)
    inverse = inverse.reshape(-1)
    if not sorted:
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        y = np.take(y, order, axis=0 if axis is None else axis)
        first, inverse, counts = first[order], rank[inverse], counts[order]
    return y, first.astype(np.int64), inverse.astype(np.int64), counts.astype(np.int64)


@one_output("ReverseSequence")
def reverse_sequence(x: np.ndarray, sequence_lens: np.ndarray, *, batch_axis: int = 1,
                     time_axis: int = 0) -> np.ndarray:
    # Batch b's first sequence_lens[b] steps in reverse, the rest as they are.
    if {batch_axis, time_axis} != {0, 1} or x.ndim < 2:
        raise ValueError(f"batch_axis {batch_axis} and time_axis {time_axis} of a {x.ndim}-d "
                         f"input are not 0 and 1, one each")
    steps = x.shape[time_axis]
    if sequence_lens.shape != (x.shape[batch_axis],):
        raise ValueError(f"sequence_lens of shape {list(sequence_lens.shape)} is not one length "
                         f"per batch of {x.shape[batch_axis]}")
    check_sequence_lens(sequence_lens, steps)
    t = np.arange(steps).reshape([steps if a == time_axis else 1 for a in range(x.ndim)])
    lens = sequence_lens.reshape([-1 if a == batch_axis else 1 for a in range(x.ndim)])
    src = np.where(t < lens, lens - 1 - t, t)
    return np.take_along_axis(x, np.broadcast_to(src, x.shape), time_axis)
