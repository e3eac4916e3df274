"""Kernels of ONNX's sequence and optional ops. A sequence is a Python list of arrays and an
optional an array or None: host values, which the host CPU engine runs these ops on. A kernel
never changes the list it was given; SequenceInsert and SequenceErase return new ones."""
from __future__ import annotations

from typing import Any

import numpy as np

from npu_emu.op_impl.axis import checked_axis
from npu_emu.op_impl.registry import kernel


def _position(pos: np.ndarray | None, length: int, default: int, insert: bool = False) -> int:
    """An index into a sequence of ``length``: -length <= i < length, or <= length where an
    insert may append. Negative ones count from the end, as in Python. A position is a scalar
    or a one-element tensor (the node suite feeds both)."""
    i = default if pos is None else int(np.asarray(pos).item())
    if not -length <= i < length + insert:
        raise IndexError(f"position {i} is outside a sequence of {length}")
    return i + length if i < 0 else i


@kernel("SequenceConstruct")
def sequence_construct(*tensors: np.ndarray) -> tuple[list[np.ndarray]]:
    return (list(tensors),)


@kernel("SequenceEmpty")
def sequence_empty(*, dtype: int = 1) -> tuple[list[np.ndarray]]:
    return ([],)


@kernel("SequenceAt")
def sequence_at(seq: list[np.ndarray], position: np.ndarray) -> tuple[np.ndarray]:
    return (seq[_position(position, len(seq), 0)],)


@kernel("SequenceInsert")
def sequence_insert(seq: list[np.ndarray], tensor: np.ndarray,
                    position: np.ndarray | None = None) -> tuple[list[np.ndarray]]:
    i = _position(position, len(seq), len(seq), insert=True)
    return (seq[:i] + [tensor] + seq[i:],)


@kernel("SequenceErase")
def sequence_erase(seq: list[np.ndarray],
                   position: np.ndarray | None = None) -> tuple[list[np.ndarray]]:
    i = _position(position, len(seq), len(seq) - 1)
    return (seq[:i] + seq[i + 1:],)


@kernel("SequenceLength")
def sequence_length(seq: list[np.ndarray]) -> tuple[np.ndarray]:
    return (np.array(len(seq), np.int64),)


@kernel("SplitToSequence")
def split_to_sequence(x: np.ndarray, split: np.ndarray | None = None, *, axis: int = 0,
                      keepdims: int = 1) -> tuple[list[np.ndarray]]:
    """No split: pieces of 1 (dropping the axis unless keepdims); a scalar split: pieces of that
    length (the last shorter); a vector: those lengths."""
    axis = checked_axis(axis, x.ndim)
    n = x.shape[axis]
    if split is None:
        pieces = np.split(x, n, axis=axis) if n else []
        return ([p.squeeze(axis) for p in pieces] if not keepdims else pieces,)
    if split.ndim == 0:
        step = int(split)
        if step < 1:
            raise ValueError(f"split {step} is not positive")
        cuts = list(range(step, n, step))
    else:
        sizes = split.astype(np.int64).reshape(-1).tolist()
        if sum(sizes) != n or min(sizes, default=0) < 0:
            raise ValueError(f"split sizes {sizes} do not cut dim {axis} of size {n}")
        cuts = np.cumsum(sizes)[:-1].tolist()
    return (np.split(x, cuts, axis=axis),)


@kernel("ConcatFromSequence")
def concat_from_sequence(seq: list[np.ndarray], *, axis: int,
                         new_axis: int = 0) -> tuple[np.ndarray]:
    return (np.stack(seq, axis=axis) if new_axis else np.concatenate(seq, axis=axis),)


@kernel("Optional")
def optional(x: Any = None, *, type: Any = None) -> tuple[Any]:
    return (x,)


@kernel("OptionalHasElement")
def optional_has_element(x: Any = None) -> tuple[np.ndarray]:
    return (np.array(x is not None),)


@kernel("OptionalGetElement")
def optional_get_element(x: Any) -> tuple[Any]:
    if x is None:
        raise ValueError("the optional is empty")
    return (x,)


@kernel("Identity", since=14)
def identity_14(x: Any) -> tuple[Any]:
    # From 14 Identity passes a sequence along, from 16 an optional: the value as it is.
    return (x,)
