"""Losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss."""
from __future__ import annotations

from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register
from ge_core.ops.shape_rules import ShapeError


@register("NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss")
def _loss(ctx: InferShapeContext) -> None:
    scores = ctx.dims(0)
    if scores is not None and len(scores) < 2:
        raise ShapeError(f"input 0 is {list(scores)}, not [N, C, ...]: the classes lie along "
                         f"axis 1")
    # The loss per target position (reduction "none") or a scalar; SoftmaxCrossEntropyLoss's
    # optional second output holds the log-probabilities, shaped like the scores.
    reduction = ctx.attr("reduction", "mean")
    ctx.set_output(0, ctx.dims(1) if reduction == "none" else (), ctx.dtype(0))
    if ctx.n_outputs > 1:
        ctx.set_output(1, ctx.dims(0), ctx.dtype(0))
