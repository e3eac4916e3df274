"""The op types fusions create (not ONNX ops), and their InferShape.

FusedConv is Conv's inputs and attributes plus ``activation``, the elementwise op applied to its
output, and an optional fourth input Z added to the output before that (both as onnxruntime's
com.microsoft FusedConv; Z of the output's very shape and type); FusedBatchNormRelu is
BatchNormalization's inputs and ``epsilon``, then a Relu. An activation keeps the shape, so each
InferShape is that of the op it extends. NormalizeV2 (x, mean, scale) is the DVPP engine's
(x - mean) * scale, its shape the three broadcast together, as Sum's.
"""
from __future__ import annotations

from ge_core.ops import get_op_def, register
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import InferShapeFunc
from ge_core.graph.ge_tensor import UNKNOWN_DIM
from ge_core.ops.shape_rules import ShapeError, dims_of
from npu_emu.op_impl.fused import ACTIVATIONS

FUSED_CONV = "FusedConv"
FUSED_BATCH_NORM_RELU = "FusedBatchNormRelu"
NORMALIZE_V2 = "NormalizeV2"


def _infer_like(base: str) -> InferShapeFunc:
    def infer(ctx: InferShapeContext) -> None:
        activation = ctx.attr("activation", "Relu")
        if activation not in ACTIVATIONS:   # (a loaded model's attr: the kernel applies these)
            raise ShapeError(f"activation {activation!r} is none the fused kernels apply "
                             f"({', '.join(ACTIVATIONS)})")
        get_op_def(base).infer_shape(ctx)
    return infer


_like_conv = _infer_like("Conv")


def _fused_conv(ctx: InferShapeContext) -> None:
    """Conv's, and Z fits the output: the kernel adds it element for element, broadcasting
    nothing (ConvEltwiseReluFusionPass fuses no other add)."""
    _like_conv(ctx)
    if not ctx.has_input(3):
        return
    y, z = dims_of(ctx.op_desc.output_descs[0].shape), ctx.dims(3)
    if y is not None and z is not None and UNKNOWN_DIM not in y + z and y != z:
        raise ShapeError(f"Z {list(z)} is not the conv output's shape {list(y)}")
    if ctx.dtype(3) != ctx.dtype(0):
        raise ShapeError(f"Z is {ctx.dtype(3).name}, x {ctx.dtype(0).name}")


register(FUSED_CONV)(_fused_conv)
register(FUSED_BATCH_NORM_RELU)(_infer_like("BatchNormalization"))
register(NORMALIZE_V2)(_infer_like("Sum"))
