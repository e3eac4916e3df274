"""The op types fusions create (not ONNX ops), and their InferShape.

FusedConv is Conv's inputs and attributes plus ``activation``, the elementwise op applied to its
output (as onnxruntime's com.microsoft FusedConv); FusedBatchNormRelu is BatchNormalization's
inputs and ``epsilon``, then a Relu. An activation keeps the shape, so each InferShape is that of
the op it extends. NormalizeV2 (x, mean, scale) is the DVPP engine's (x - mean) * scale, its
shape the three broadcast together, as Sum's.
"""
from __future__ import annotations

from ge_core.ops import get_op_def, register
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import InferShapeFunc
from ge_core.ops.shape_rules import ShapeError
from npu_emu.op_impl.fused import ACTIVATIONS

FUSED_CONV = "FusedConv"
FUSED_BATCH_NORM_RELU = "FusedBatchNormRelu"
NORMALIZE_V2 = "NormalizeV2"

# fused type -> the op whose inputs, attributes and shape rule it has
EXTENDS = {FUSED_CONV: "Conv", FUSED_BATCH_NORM_RELU: "BatchNormalization"}


def _infer_like(base: str) -> InferShapeFunc:
    def infer(ctx: InferShapeContext) -> None:
        activation = ctx.attr("activation", "Relu")
        if activation not in ACTIVATIONS:   # (a loaded model's attr: the kernel applies these)
            raise ShapeError(f"activation {activation!r} is none the fused kernels apply "
                             f"({', '.join(ACTIVATIONS)})")
        get_op_def(base).infer_shape(ctx)
    return infer


for _fused, _base in EXTENDS.items():
    register(_fused)(_infer_like(_base))
register(NORMALIZE_V2)(_infer_like("Sum"))
