"""Reductions over axes: the Reduce* family and ArgMax/ArgMin."""
from __future__ import annotations

from ge_core.graph.ge_tensor import UNKNOWN_DIM
from ge_core.graph.types import DataType
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register
from ge_core.ops.shape_rules import Dims, normalize_axes

REDUCE = ("ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
          "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare")


def _reduced(x: Dims, axes: list[int], keepdims: bool) -> Dims:
    if x is None:
        return None
    axes = normalize_axes(axes, len(x))
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(x))
    return tuple(d for i, d in enumerate(x) if i not in axes)


@register(*REDUCE)
def _reduce(ctx: InferShapeContext) -> None:
    # axes: an attr (ReduceSum < 13, others < 18) or input 1; none given reduces every axis,
    # unless noop_with_empty_axes makes it the identity.
    x, keepdims = ctx.dims(0), bool(ctx.attr("keepdims", 1))
    given, axes = ctx.operand_ints("axes", 1)
    if given and axes is None:  # axes computed at run time: only the rank may be known
        dims = tuple(UNKNOWN_DIM for _ in x) if x is not None and keepdims else None
    elif not axes and ctx.attr("noop_with_empty_axes", 0):
        dims = x
    else:
        dims = _reduced(x, axes if axes else list(range(len(x or ()))), keepdims)
    ctx.set_output(0, dims, ctx.dtype(0))


@register("ArgMax", "ArgMin")
def _arg_reduce(ctx: InferShapeContext) -> None:
    # int64 indices along one axis.
    keepdims = bool(ctx.attr("keepdims", 1))
    ctx.set_output(0, _reduced(ctx.dims(0), [int(ctx.attr("axis", 0))], keepdims),
                   DataType.DT_INT64)
