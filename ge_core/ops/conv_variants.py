"""Convolutions beyond Conv: DeformConv and CausalConvWithState."""
from __future__ import annotations

from ge_core.graph.ge_tensor import UNKNOWN_DIM
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register


@register("DeformConv")
def _deform_conv(ctx: InferShapeContext) -> None:
    # (N, M) then the offsets' spatial dims, which are the output's.
    x, w, offset = ctx.dims(0), ctx.dims(1), ctx.dims(2)
    n = UNKNOWN_DIM if x is None else x[0]
    m = UNKNOWN_DIM if w is None else w[0]
    ctx.set_output(0, None if offset is None else (n, m) + offset[2:], ctx.dtype(0))


@register("CausalConvWithState")
def _causal_conv_with_state(ctx: InferShapeContext) -> None:
    # y: x's shape; the present state (N, C, k - 1).
    x, w = ctx.dims(0), ctx.dims(1)
    ctx.set_output(0, x, ctx.dtype(0))
    if ctx.n_outputs > 1:
        k = UNKNOWN_DIM if w is None or w[2] == UNKNOWN_DIM else w[2] - 1
        dims = None if x is None else x[:2] + (k,)
        ctx.set_output(1, dims, ctx.dtype(0))
