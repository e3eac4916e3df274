"""Normalisation over trailing axes or channel groups: LayerNormalization, RMSNormalization,
GroupNormalization (x's shape)."""
from __future__ import annotations

from ge_core.graph.ge_tensor import UNKNOWN_DIM
from ge_core.ops.elementwise import keep_shape
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register
from ge_core.ops.shape_rules import ShapeError, normalize_axis
from npu_emu.op_impl.normalization import check_groups


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


@register("RMSNormalization")
def _rms_normalization(ctx: InferShapeContext) -> None:
    keep_shape(ctx)


@register("GroupNormalization")
def _group_normalization(ctx: InferShapeContext) -> None:
    x = ctx.dims(0)
    try:   # the kernel's own check; an unknown rank is checked once it is known
        check_groups((UNKNOWN_DIM, UNKNOWN_DIM) if x is None else x,
                     int(ctx.attr("num_groups", 0)))
    except ValueError as err:
        raise ShapeError(str(err)) from None
    keep_shape(ctx)
