"""Running sums and products along an axis: CumSum, CumProd (x's shape and dtype)."""
from __future__ import annotations

from ge_core.ops.elementwise import keep_shape
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register
from ge_core.ops.shape_rules import normalize_axis, one_value


@register("CumSum", "CumProd")
def _cumulative(ctx: InferShapeContext) -> None:
    one_value(ctx.dims(1), "axis")
    axis, x = ctx.const_ints(1), ctx.dims(0)
    if axis is not None and x is not None:
        normalize_axis(axis[0], len(x))
    keep_shape(ctx)
