"""The op types fusions create (not ONNX ops), and their InferShape.

FusedConv is Conv's inputs and attributes plus ``activation``, the elementwise op applied to its
output (as onnxruntime's com.microsoft FusedConv); FusedBatchNormRelu is BatchNormalization's
inputs and ``epsilon``, then a Relu. An activation keeps the shape, so each InferShape is that of
the op it extends.
"""
from __future__ import annotations

from ge_core.ops import get_op_def, register
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import InferShapeFunc

FUSED_CONV = "FusedConv"
FUSED_BATCH_NORM_RELU = "FusedBatchNormRelu"

# fused type -> the op whose inputs, attributes and shape rule it has
EXTENDS = {FUSED_CONV: "Conv", FUSED_BATCH_NORM_RELU: "BatchNormalization"}


def _infer_like(base: str) -> InferShapeFunc:
    def infer(ctx: InferShapeContext) -> None:
        get_op_def(base).infer_shape(ctx)
    return infer


for _fused, _base in EXTENDS.items():
    register(_fused)(_infer_like(_base))
