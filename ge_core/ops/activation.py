"""Activations added to ONNX after the classic ones (those are with the elementwise ops)."""
from __future__ import annotations

from ge_core.ops.elementwise import keep_shape
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register


@register("Gelu", "Swish", "SwiGLU")
def _activation(ctx: InferShapeContext) -> None:
    keep_shape(ctx)  # SwiGLU's two operands have one shape
