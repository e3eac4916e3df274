"""Running sums and products along an axis: CumSum, CumProd (x's shape and dtype)."""
from __future__ import annotations

from ge_core.ops.elementwise import keep_shape
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register


@register("CumSum", "CumProd")
def _cumulative(ctx: InferShapeContext) -> None:
    keep_shape(ctx)
