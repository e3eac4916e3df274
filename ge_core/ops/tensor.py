"""Ops that move, cut, grow or describe tensors without arithmetic on their elements.

Many take a shape-like operand (Reshape's shape, Slice's starts, Squeeze's axes). Old opsets
carried it as an attr, new ones as an input; the value is known at compile time only when a Const
produces it (constant folding makes more of them Const), otherwise the affected dims are -1.
"""
from __future__ import annotations

from ge_core.graph.ge_tensor import UNKNOWN_DIM
from ge_core.graph.types import DataType
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register
from ge_core.ops.shape_rules import (Dims, ShapeError, broadcast, normalize_axes,
                                     normalize_axis, product, slice_len, unknown_dims)
from npu_emu.op_impl.tensor import check_reshape_dims, pad_widths, padded_size, range_length


def _unknown_of_len(ctx: InferShapeContext, idx: int) -> Dims:
    """All-unknown dims, as many as the 1-D shape operand ``idx`` has elements (if known)."""
    operand = ctx.dims(idx) if ctx.has_input(idx) else None
    if operand is None or len(operand) != 1 or operand[0] == UNKNOWN_DIM:
        return None
    return unknown_dims(operand[0], "a shape operand's length")


@register("Reshape")
def _reshape(ctx: InferShapeContext) -> None:
    # shape: attr (opset < 5) or input 1. 0 copies the input dim (unless allowzero), one -1 is
    # whatever makes the element counts equal.
    x = ctx.dims(0)
    given, shape = ctx.operand_ints("shape", 1)
    if not given:
        raise ShapeError("no shape: Reshape takes it as an attribute before opset 5, as input 1 "
                         "since")
    if shape is None:
        return ctx.set_output(0, _unknown_of_len(ctx, 1), ctx.dtype(0))
    out = list(shape)
    if not ctx.attr("allowzero", 0):
        for i, d in enumerate(shape):
            if d == 0:
                out[i] = x[i] if x is not None and i < len(x) else UNKNOWN_DIM
    if shape.count(-1) > 1:
        raise ShapeError(f"shape {shape} has more than one -1")
    try:
        check_reshape_dims(shape)
    except ValueError as err:   # the kernel's own check of its operand
        raise ShapeError(str(err)) from None
    if -1 in shape:
        infer_at = shape.index(-1)
        rest = product(out[:infer_at] + out[infer_at + 1:])
        total = product(x) if x is not None else UNKNOWN_DIM
        if UNKNOWN_DIM not in (rest, total) and rest > 0:
            if total % rest:
                raise ShapeError(f"cannot reshape {list(x)} to {shape}")
            out[infer_at] = total // rest
    elif x is not None and UNKNOWN_DIM not in (product(x), product(out)) \
            and product(x) != product(out):
        raise ShapeError(f"cannot reshape {list(x)} to {shape}")
    ctx.set_output(0, tuple(out), ctx.dtype(0))


@register("Flatten")
def _flatten(ctx: InferShapeContext) -> None:
    # [d0 * ... * d(axis-1), d(axis) * ... * dn]
    x = ctx.dims(0)
    if x is None:
        return ctx.set_output(0, (UNKNOWN_DIM, UNKNOWN_DIM), ctx.dtype(0))
    axis = int(ctx.attr("axis", 1))
    axis = axis if axis == len(x) else normalize_axis(axis, len(x))
    ctx.set_output(0, (product(x[:axis]), product(x[axis:])), ctx.dtype(0))


@register("Transpose")
def _transpose(ctx: InferShapeContext) -> None:
    # y[i] = x[perm[i]]; no perm reverses the dims.
    x = ctx.dims(0)
    if x is None:
        return ctx.set_output(0, None, ctx.dtype(0))
    perm = ctx.ints_attr("perm") or list(range(len(x)))[::-1]
    if sorted(perm) != list(range(len(x))):
        raise ShapeError(f"perm {perm} is not a permutation of rank {len(x)}")
    ctx.set_output(0, tuple(x[p] for p in perm), ctx.dtype(0))


@register("Squeeze")
def _squeeze(ctx: InferShapeContext) -> None:
    # axes: attr (opset < 13) or input 1; none given drops every dim of size 1.
    x = ctx.dims(0)
    given, axes = ctx.operand_ints("axes", 1)
    if x is None or (given and axes is None):
        return ctx.set_output(0, None, ctx.dtype(0))
    if not axes:
        if UNKNOWN_DIM in x:  # which dims go is only known at run time
            return ctx.set_output(0, None, ctx.dtype(0))
        axes = [i for i, d in enumerate(x) if d == 1]
    axes = normalize_axes(axes, len(x))
    if any(x[a] not in (1, UNKNOWN_DIM) for a in axes):
        raise ShapeError(f"cannot squeeze axes {axes} of {list(x)}")
    ctx.set_output(0, tuple(d for i, d in enumerate(x) if i not in axes), ctx.dtype(0))


@register("Unsqueeze")
def _unsqueeze(ctx: InferShapeContext) -> None:
    # axes (attr before opset 13, then input 1) index the output, which gains a 1 at each.
    x = ctx.dims(0)
    _, axes = ctx.operand_ints("axes", 1)
    if x is None or axes is None:
        n_new = _unknown_of_len(ctx, 1)
        dims = None if x is None or n_new is None else (UNKNOWN_DIM,) * (len(x) + len(n_new))
        return ctx.set_output(0, dims, ctx.dtype(0))
    rank = len(x) + len(axes)
    axes = normalize_axes(axes, rank)
    rest = iter(x)
    ctx.set_output(0, tuple(1 if i in axes else next(rest) for i in range(rank)), ctx.dtype(0))


@register("Concat")
def _concat(ctx: InferShapeContext) -> None:
    # Sum along axis, every other dim equal.
    shapes = [s for s in (ctx.dims(i) for i in range(ctx.n_inputs)) if s is not None]
    if not shapes:
        return ctx.set_output(0, None, ctx.dtype(0))
    rank = len(shapes[0])
    if any(len(s) != rank for s in shapes):
        raise ShapeError(f"inputs of ranks {[len(s) for s in shapes]}")
    axis = normalize_axis(int(ctx.attr("axis", 1)), rank)  # Concat-1 defaulted to axis 1
    complete = len(shapes) == ctx.n_inputs
    out = []
    for i in range(rank):
        dims = [s[i] for s in shapes]
        if i == axis:
            out.append(sum(dims) if complete and UNKNOWN_DIM not in dims else UNKNOWN_DIM)
            continue
        known = {d for d in dims if d != UNKNOWN_DIM}
        if len(known) > 1:
            raise ShapeError(f"dim {i} differs between inputs: {sorted(known)}")
        out.append(known.pop() if known else UNKNOWN_DIM)
    ctx.set_output(0, tuple(out), ctx.dtype(0))


def _split_sizes(ctx: InferShapeContext, size: int, n: int) -> list[int]:
    given, sizes = ctx.operand_ints("split", 1)
    if given:
        return sizes if sizes is not None else [UNKNOWN_DIM] * n
    if size == UNKNOWN_DIM:
        return [UNKNOWN_DIM] * n
    if ctx.attr("num_outputs") is not None:
        part = -(-size // n)
        return [part] * (n - 1) + [size - part * (n - 1)]
    if size % n:
        raise ShapeError(f"dim {size} does not split into {n} equal parts")
    return [size // n] * n


@register("Split")
def _split(ctx: InferShapeContext) -> None:
    # Sizes along axis from `split` (attr before opset 13, then input 1); without them equal
    # parts, the last one smaller when num_outputs (opset 18) does not divide the dim.
    x, n = ctx.dims(0), ctx.n_outputs
    if x is None:
        for i in range(n):
            ctx.set_output(i, None, ctx.dtype(0))
        return
    axis = normalize_axis(int(ctx.attr("axis", 0)), len(x))
    sizes = _split_sizes(ctx, x[axis], n)
    if len(sizes) != n:
        raise ShapeError(f"{len(sizes)} split sizes for {n} outputs")
    if UNKNOWN_DIM not in (x[axis], *sizes) and sum(sizes) != x[axis]:
        raise ShapeError(f"split sizes {sizes} do not add up to {x[axis]}")
    for i, part in enumerate(sizes):
        ctx.set_output(i, x[:axis] + (part,) + x[axis + 1:], ctx.dtype(0))


@register("Slice")
def _slice(ctx: InferShapeContext) -> None:
    # starts/ends/axes attrs (opset < 10) or inputs 1-4 with steps; each sliced axis keeps
    # len(range(start, end, step)) after Python-style clamping.
    x = ctx.dims(0)
    if x is None:
        return ctx.set_output(0, None, ctx.dtype(0))
    operands = [ctx.operand_ints(key, i)
                for i, key in enumerate(("starts", "ends", "axes", "steps"), start=1)]
    (_, starts), (_, ends), (_, axes), (_, steps) = operands
    if starts is None or ends is None or any(given and v is None for given, v in operands):
        # Bounds (or axes, steps) known only at run time: every possibly sliced dim is unknown.
        sliced = range(len(x)) if axes is None else normalize_axes(axes, len(x))
        return ctx.set_output(0, tuple(UNKNOWN_DIM if i in sliced else d
                                       for i, d in enumerate(x)), ctx.dtype(0))
    axes = list(range(len(starts))) if axes is None else axes
    steps = steps if steps is not None else [1] * len(starts)
    out = list(x)
    for start, end, axis, step in zip(starts, ends, axes, steps):
        axis = normalize_axis(axis, len(x))
        out[axis] = slice_len(x[axis], start, end, step)
    ctx.set_output(0, tuple(out), ctx.dtype(0))


@register("Pad")
def _pad(ctx: InferShapeContext) -> None:
    # Each dim grows by its begin and end pad: `paddings` (opset 1), `pads` attr (opset 2),
    # input 1 (opset 11), restricted to input 3's axes (opset 18).
    x = ctx.dims(0)
    pads = ctx.ints_attr("paddings") or ctx.operand_ints("pads", 1)[1]
    axes = ctx.const_ints(3) if ctx.has_input(3) else list(range(len(x or ())))
    if x is None or pads is None or axes is None:
        dims = None if x is None else (UNKNOWN_DIM,) * len(x)
        return ctx.set_output(0, dims, ctx.dtype(0))
    axes = [normalize_axis(a, len(x)) for a in axes]
    out = list(x)
    try:   # the kernel's own checks of its pads
        for axis, (begin, end) in zip(axes, pad_widths(pads, len(axes))):
            if out[axis] != UNKNOWN_DIM:
                out[axis] = padded_size(out[axis], begin, end, axis, pads)
    except ValueError as err:
        raise ShapeError(str(err)) from None
    ctx.set_output(0, tuple(out), ctx.dtype(0))


@register("Tile")
def _tile(ctx: InferShapeContext) -> None:
    # y[i] = x[i] * repeats[i]
    x, repeats = ctx.dims(0), ctx.const_dims(1, "repeats")
    if x is None or repeats is None:
        dims = None if x is None else (UNKNOWN_DIM,) * len(x)
        return ctx.set_output(0, dims, ctx.dtype(0))
    if len(repeats) != len(x):
        raise ShapeError(f"{len(repeats)} repeats for rank {len(x)}")
    ctx.set_output(0, tuple(UNKNOWN_DIM if d == UNKNOWN_DIM else d * r
                            for d, r in zip(x, repeats)), ctx.dtype(0))


@register("Expand")
def _expand(ctx: InferShapeContext) -> None:
    # y = broadcast(x, shape)
    shape = ctx.const_dims(1, "shape")
    target = tuple(shape) if shape is not None else _unknown_of_len(ctx, 1)
    ctx.set_output(0, broadcast(ctx.dims(0), target), ctx.dtype(0))


@register("Shape")
def _shape(ctx: InferShapeContext) -> None:
    # int64 [rank], or the length of dims[start:end] (opset 15).
    x = ctx.dims(0)
    if x is None:
        return ctx.set_output(0, (UNKNOWN_DIM,), DataType.DT_INT64)
    start, end = int(ctx.attr("start", 0)), ctx.attr("end")
    n = slice_len(len(x), start, len(x) if end is None else int(end), 1)
    ctx.set_output(0, (n,), DataType.DT_INT64)


@register("Size")
def _size(ctx: InferShapeContext) -> None:
    ctx.set_output(0, (), DataType.DT_INT64)  # int64 scalar


@register("ConstantOfShape")
def _constant_of_shape(ctx: InferShapeContext) -> None:
    # y has the shape input 0 holds, filled with `value` (a 1-element tensor; f32 0 by default).
    shape = ctx.const_dims(0, "shape")
    value = ctx.attr("value")
    dtype = DataType.DT_FLOAT if value is None else DataType.from_numpy(value.dtype)
    ctx.set_output(0, tuple(shape) if shape is not None else _unknown_of_len(ctx, 0), dtype)


@register("Cast")
def _cast(ctx: InferShapeContext) -> None:
    ctx.set_output(0, ctx.dims(0), ctx.dtype_attr("to"))  # x's shape, dtype `to`


@register("CastLike")
def _cast_like(ctx: InferShapeContext) -> None:
    ctx.set_output(0, ctx.dims(0), ctx.dtype(1))  # x's shape, the dtype of input 1


@register("Gather")
def _gather(ctx: InferShapeContext) -> None:
    # data[:axis] + indices.shape + data[axis+1:]
    data, indices = ctx.dims(0), ctx.dims(1)
    if data is None or indices is None:
        return ctx.set_output(0, None, ctx.dtype(0))
    axis = normalize_axis(int(ctx.attr("axis", 0)), len(data))
    ctx.set_output(0, data[:axis] + indices + data[axis + 1:], ctx.dtype(0))


@register("Range")
def _range(ctx: InferShapeContext) -> None:
    # 1-D, max(ceil((limit - start) / delta), 0) long: known when all three are Const.
    bounds = [ctx.const(i) for i in range(3)]
    n = UNKNOWN_DIM
    if all(b is not None for b in bounds):
        try:
            n = range_length(*bounds)
        except ValueError as err:   # the kernel's own check of its operands
            raise ShapeError(str(err)) from None
    ctx.set_output(0, (n,), ctx.dtype(0))
