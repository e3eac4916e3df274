"""HCCL's collective ops (GE's Hcom* ops, run by the DNN_HCCL engine). They are not ONNX ops, but
a model that trains across devices carries them: an AllReduce of each gradient. The emulated
device is one rank, so a collective's output has its input's shape and dtype."""
from __future__ import annotations

from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register

COLLECTIVE_OPS = ("HcomAllReduce", "HcomBroadcast", "HcomAllGather")


@register(*COLLECTIVE_OPS)
def _collective(ctx: InferShapeContext) -> None:
    ctx.set_output(0, ctx.dims(0), ctx.dtype(0))
