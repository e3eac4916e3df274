"""Bit-level ops: BitwiseAnd/Or/Xor/Not, BitCast, and the float tests IsInf/IsNaN."""
from __future__ import annotations

from ge_core.graph.types import DataType
from ge_core.ops.elementwise import keep_shape
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register
from ge_core.ops.shape_rules import broadcast


@register("BitwiseAnd", "BitwiseOr", "BitwiseXor")
def _bitwise(ctx: InferShapeContext) -> None:
    ctx.set_output(0, broadcast(ctx.dims(0), ctx.dims(1)), ctx.dtype(0))


@register("BitwiseNot")
def _bitwise_not(ctx: InferShapeContext) -> None:
    keep_shape(ctx)


@register("BitCast")
def _bit_cast(ctx: InferShapeContext) -> None:
    # x's shape, read as type `to` (of x's width: the kernel checks the bytes).
    ctx.set_output(0, ctx.dims(0), ctx.dtype_attr("to"))


@register("IsInf", "IsNaN")
def _float_test(ctx: InferShapeContext) -> None:
    ctx.set_output(0, ctx.dims(0), DataType.DT_BOOL)
