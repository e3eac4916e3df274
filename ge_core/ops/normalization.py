"""Normalisation over trailing axes or channel groups: LayerNormalization, RMSNormalization,
GroupNormalization (x's shape)."""
from __future__ import annotations

from ge_core.ops.elementwise import keep_shape
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register
from ge_core.ops.shape_rules import normalize_axis


@register("LayerNormalization")
def _layer_normalization(ctx: InferShapeContext) -> None:
    # Y: x's shape; the optional Mean and InvStdDev keep the dims before axis, 1 after.
    x = ctx.dims(0)
    ctx.set_output(0, x, ctx.dtype(0))
    stats = None
    if x is not None:
        axis = normalize_axis(int(ctx.attr("axis", -1)), len(x))
        stats = x[:axis] + (1,) * (len(x) - axis)
    for i in range(1, ctx.n_outputs):
        ctx.set_output(i, stats, ctx.dtype(0))


@register("RMSNormalization", "GroupNormalization")
def _normalization(ctx: InferShapeContext) -> None:
    keep_shape(ctx)
