"""Quantization ops: the QDQ pair, DynamicQuantizeLinear and the integer matmul / conv ops of
quantized models. Shapes are those of the float ops they stand for; the dtypes are the
quantized ones."""
from __future__ import annotations

from ge_core.graph.types import DataType
from ge_core.ops.data_type import data_type_from_onnx
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.linalg import matmul_dims
from ge_core.ops.nn import conv_dims
from ge_core.ops.op_registry import register


@register("QuantizeLinear")
def _quantize_linear(ctx: InferShapeContext) -> None:
    # y: x's shape, the zero point's dtype, else output_dtype (21+), else uint8.
    if ctx.has_input(2):
        dtype = ctx.dtype(2)
    else:
        from onnx import TensorProto   # loaded by then: the model was parsed with it
        dtype = data_type_from_onnx(int(ctx.attr("output_dtype", 0)) or TensorProto.UINT8)
    ctx.set_output(0, ctx.dims(0), dtype)


@register("DequantizeLinear")
def _dequantize_linear(ctx: InferShapeContext) -> None:
    # y: x's shape, the scale's dtype unless output_dtype (23+) names one.
    output_dtype = int(ctx.attr("output_dtype", 0))
    ctx.set_output(0, ctx.dims(0), data_type_from_onnx(output_dtype) if output_dtype
                   else ctx.dtype(1))


@register("DynamicQuantizeLinear")
def _dynamic_quantize_linear(ctx: InferShapeContext) -> None:
    # y: x's shape in uint8; its scale (x's dtype) and zero point (uint8) are scalars.
    ctx.set_output(0, ctx.dims(0), DataType.DT_UINT8)
    ctx.set_output(1, (), ctx.dtype(0))
    ctx.set_output(2, (), DataType.DT_UINT8)


@register("MatMulInteger")
def _matmul_integer(ctx: InferShapeContext) -> None:
    ctx.set_output(0, matmul_dims(ctx.dims(0), ctx.dims(1)), DataType.DT_INT32)


@register("QLinearMatMul")
def _qlinear_matmul(ctx: InferShapeContext) -> None:
    # a is input 0, b input 3; y takes y_zero_point's dtype.
    ctx.set_output(0, matmul_dims(ctx.dims(0), ctx.dims(3)), ctx.dtype(7))


@register("ConvInteger")
def _conv_integer(ctx: InferShapeContext) -> None:
    ctx.set_output(0, conv_dims(ctx), DataType.DT_INT32)


@register("QLinearConv")
def _qlinear_conv(ctx: InferShapeContext) -> None:
    # w is input 3; y takes y_zero_point's dtype.
    ctx.set_output(0, conv_dims(ctx, w_idx=3), ctx.dtype(7))
