"""Indexing ops: gather and scatter by index tensors, and the selections whose output size
depends on the values (Compress, NonZero, Unique; TopK and OneHot when k or depth is computed):
their dims are -1 until run time, which is what sends a graph to GE's dynamic-shape path.
"""
from __future__ import annotations

from ge_core.graph.ge_tensor import UNKNOWN_DIM
from ge_core.graph.types import DataType
from ge_core.ops.elementwise import keep_shape
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register
from ge_core.ops.shape_rules import ShapeError, normalize_axis, product

I64 = DataType.DT_INT64


@register("ScatterElements", "Scatter", "ScatterND", "TensorScatter", "ReverseSequence")
def _like_data(ctx: InferShapeContext) -> None:
    keep_shape(ctx)  # the data (or cache) with some elements replaced or moved


@register("GatherElements")
def _gather_elements(ctx: InferShapeContext) -> None:
    ctx.set_output(0, ctx.dims(1), ctx.dtype(0))  # indices' shape, data's dtype


@register("GatherND")
def _gather_nd(ctx: InferShapeContext) -> None:
    # indices[:-1] + data[batch_dims + k:], k = indices[-1] (index tuples of length k)
    data, indices = ctx.dims(0), ctx.dims(1)
    if data is None or indices is None or indices[-1] == UNKNOWN_DIM:
        return ctx.set_output(0, None, ctx.dtype(0))
    b, k = int(ctx.attr("batch_dims", 0)), indices[-1]
    if b + k > len(data):
        raise ShapeError(f"index tuples of {k} past batch dims {b} exceed data rank {len(data)}")
    ctx.set_output(0, indices[:-1] + data[b + k:], ctx.dtype(0))


@register("OneHot")
def _one_hot(ctx: InferShapeContext) -> None:
    # indices' shape with a depth-long axis inserted at `axis`; values' dtype
    indices = ctx.dims(0)
    depth = ctx.const_dims(1, "depth")
    if indices is None:
        return ctx.set_output(0, None, ctx.dtype(2))
    axis = normalize_axis(int(ctx.attr("axis", -1)), len(indices) + 1)
    n = depth[0] if depth else UNKNOWN_DIM
    ctx.set_output(0, indices[:axis] + (n,) + indices[axis:], ctx.dtype(2))


@register("Compress")
def _compress(ctx: InferShapeContext) -> None:
    # The kept slices' count is known only at run time: 1-D without axis, else -1 on axis.
    x, axis = ctx.dims(0), ctx.attr("axis")
    if axis is None:
        return ctx.set_output(0, (UNKNOWN_DIM,), ctx.dtype(0))
    if x is None:
        return ctx.set_output(0, None, ctx.dtype(0))
    axis = normalize_axis(int(axis), len(x))
    ctx.set_output(0, x[:axis] + (UNKNOWN_DIM,) + x[axis + 1:], ctx.dtype(0))


@register("NonZero")
def _non_zero(ctx: InferShapeContext) -> None:
    x = ctx.dims(0)  # int64 [rank, count]; a scalar's [1, count], as onnxruntime has it
    ctx.set_output(0, (UNKNOWN_DIM if x is None else max(len(x), 1), UNKNOWN_DIM), I64)


@register("TopK")
def _top_k(ctx: InferShapeContext) -> None:
    # Values and int64 indices: x's shape with k along axis (k: attr before opset 10, input 1).
    x = ctx.dims(0)
    _, k = ctx.operand_ints("k", 1)
    dims = None
    if x is not None:
        axis = normalize_axis(int(ctx.attr("axis", -1)), len(x))
        n = k[0] if k else UNKNOWN_DIM
        if UNKNOWN_DIM not in (n, x[axis]) and n > x[axis]:
            raise ShapeError(f"k {n} exceeds dim {x[axis]} of axis {axis}")
        dims = x[:axis] + (n,) + x[axis + 1:]
    ctx.set_output(0, dims, ctx.dtype(0))
    ctx.set_output(1, dims, I64)


@register("Unique")
def _unique(ctx: InferShapeContext) -> None:
    # Y: the distinct elements (flattened) or slices along axis, as many as there are; then
    # int64 first indices and counts (one per distinct value) and the inverse (one per input
    # element, or per slice along axis).
    x, axis = ctx.dims(0), ctx.attr("axis")
    if axis is None:
        y = (UNKNOWN_DIM,)
        n_inverse = UNKNOWN_DIM if x is None else product(x)
    elif x is None:
        y, n_inverse = None, UNKNOWN_DIM
    else:
        axis = normalize_axis(int(axis), len(x))
        y, n_inverse = x[:axis] + (UNKNOWN_DIM,) + x[axis + 1:], x[axis]
    ctx.set_output(0, y, ctx.dtype(0))
    for i, dims in ((1, (UNKNOWN_DIM,)), (2, (n_inverse,)), (3, (UNKNOWN_DIM,))):
        if i < ctx.n_outputs:
            ctx.set_output(i, dims, I64)

