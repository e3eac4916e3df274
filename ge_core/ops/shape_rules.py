"""Shape arithmetic shared by the InferShape functions.

Dims are a tuple of ints with -1 for a dim known only at run time, or None for an unknown rank
(GeShape.unknown_rank() in the IR). Nothing here knows about nodes, so every rule can be checked
on plain tuples.
"""
from __future__ import annotations

import math
from typing import Iterable, Sequence

from ge_core.graph.ge_tensor import UNKNOWN_DIM, GeShape

Dims = tuple[int, ...] | None
MAX_DIM_NUM = 25   # the most dims a shape has: gert::Shape::kMaxDimNum (metadef exe_graph/shape.h)


class ShapeError(ValueError):
    """The inputs admit no output shape (the refiner adds the node's name)."""


def dims_of(shape: GeShape) -> Dims:
    return None if shape.is_unknown_rank else shape.dims


def broadcast(*shapes: Dims) -> Dims:
    """numpy's multidirectional broadcast. An unknown dim against 1 stays unknown; against n > 1
    it must be n at run time, so the result is n (ONNX's rule too)."""
    if any(s is None for s in shapes):
        return None
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(rank):
        dims = [s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0]
        known = {d for d in dims if d != UNKNOWN_DIM and d != 1}
        if len(known) > 1:
            raise ShapeError(f"cannot broadcast {' and '.join(map(_text, shapes))}")
        if known:
            out.append(known.pop())
        else:
            out.append(1 if all(d == 1 for d in dims) else UNKNOWN_DIM)
    return tuple(out)


def unknown_dims(count: int, what: str) -> tuple[int, ...]:
    """``count`` unknown dims, the rank ``what`` says a shape has (a shape operand's length, a
    theta's spatial count): a declared dim of 2^31 there would be a 2^31-tuple, not a shape."""
    if count > MAX_DIM_NUM:
        raise ShapeError(f"{what} of {count}: a shape has at most {MAX_DIM_NUM} dims "
                         f"(gert::Shape::kMaxDimNum)")
    return (UNKNOWN_DIM,) * count


def broadcasts_to(small: tuple[int, ...], big: tuple[int, ...]) -> bool:
    """ONNX's unidirectional broadcast: ``small`` stretches to ``big`` (unknown dims fit)."""
    return len(small) <= len(big) and all(
        s in (1, b, UNKNOWN_DIM) or b == UNKNOWN_DIM for s, b in zip(small[::-1], big[::-1]))


def merge(a: Dims, b: Dims) -> Dims:
    """The shape that covers both a and b (If's two branches, a Loop state across iterations):
    equal dims stay, differing dims become unknown, differing ranks an unknown rank."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else UNKNOWN_DIM for x, y in zip(a, b))


def one_value(dims: Dims, what: str) -> None:
    """An operand ONNX gives as a 0-D tensor holds one value (a 1-element tensor of any rank
    passes, as onnxruntime reads it): a [2] one would meet the kernel as numpy's error."""
    if dims is not None and UNKNOWN_DIM not in dims and math.prod(dims) != 1:
        raise ShapeError(f"{what} is {list(dims)}, not one value")


def one_list(dims: Dims, what: str) -> None:
    """An operand ONNX gives as a 1-D tensor is one: a 0-D one would meet the kernel as
    Python's "iteration over a 0-d array"."""
    if dims is not None and len(dims) != 1:
        raise ShapeError(f"{what} is {list(dims)}, not a list (a 1-D tensor)")


def normalize_axis(axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise ShapeError(f"axis {axis} out of range for rank {rank}")
    return axis % rank


def normalize_axes(axes: Iterable[int], rank: int) -> list[int]:
    out = sorted(normalize_axis(a, rank) for a in axes)
    if len(set(out)) != len(out):
        raise ShapeError(f"repeated axis in {list(axes)}")
    return out


def product(dims: Sequence[int]) -> int:
    return UNKNOWN_DIM if UNKNOWN_DIM in dims else math.prod(dims)


def window_out(size: int, kernel: int, stride: int, dilation: int, pad_begin: int,
               pad_end: int, ceil_mode: bool = False) -> int:
    """Conv/pool output length along one axis."""
    if size == UNKNOWN_DIM or kernel == UNKNOWN_DIM:
        return UNKNOWN_DIM
    span = size + pad_begin + pad_end - ((kernel - 1) * dilation + 1)
    if not ceil_mode:
        out = span // stride + 1
    else:
        out = -(-span // stride) + 1
        # The spec and both runtimes (onnxruntime, onnx.reference) drop a last window that
        # would start inside the right padding; onnx 1.23's C++ shape inference does not.
        if (out - 1) * stride >= size + pad_begin:
            out -= 1
    # ONNX's formula: a window up to a stride wider than the padded map fits 0 times (so say
    # its shape inference, onnxruntime and the reference); an empty map has no window however
    # wide (the reference returns the empty output). Wider still is the model's mistake.
    if out < 0 and size == 0:
        return 0
    if out < 0:
        raise ShapeError(f"window {kernel} (dilation {dilation}) is larger than padded input "
                         f"{size}+{pad_begin}+{pad_end}")
    return out


def same_pads(size: int, kernel: int, stride: int, dilation: int, upper: bool) -> tuple[int, int]:
    """auto_pad SAME_UPPER/SAME_LOWER: pad so that out = ceil(size / stride); the odd pixel goes
    at the end for UPPER, at the start for LOWER."""
    out = -(-size // stride)
    total = max(0, (out - 1) * stride + (kernel - 1) * dilation + 1 - size)
    small, big = total // 2, total - total // 2
    return (small, big) if upper else (big, small)


def slice_len(size: int, start: int, end: int, step: int) -> int:
    """Length of x[start:end:step] with ONNX Slice's clamping, which is Python's."""
    if size == UNKNOWN_DIM:
        return UNKNOWN_DIM
    if step == 0:
        raise ShapeError("slice step 0")
    return len(range(*slice(start, end, step).indices(size)))


def _text(dims: Dims) -> str:
    return "[*]" if dims is None else "[" + ",".join("?" if d < 0 else str(d) for d in dims) + "]"
