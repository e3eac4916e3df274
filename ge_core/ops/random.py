"""Random ops: Bernoulli, RandomUniform(Like), RandomNormal(Like), Multinomial."""
from __future__ import annotations

from ge_core.graph.ge_tensor import UNKNOWN_DIM
from ge_core.graph.types import DataType
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register


def _dtype(ctx: InferShapeContext, default: DataType | None) -> DataType:
    return ctx.dtype_attr("dtype") or (default if default is not None else ctx.dtype(0))


@register("Bernoulli", "RandomUniformLike", "RandomNormalLike")
def _like(ctx: InferShapeContext) -> None:
    ctx.set_output(0, ctx.dims(0), _dtype(ctx, None))  # x's shape, dtype attr or x's


@register("RandomUniform", "RandomNormal")
def _from_shape(ctx: InferShapeContext) -> None:
    ctx.set_output(0, tuple(ctx.ints_attr("shape")), _dtype(ctx, DataType.DT_FLOAT))


@register("Multinomial")
def _multinomial(ctx: InferShapeContext) -> None:
    # (batch, sample_size) class indices, int32 by default.
    x = ctx.dims(0)
    batch = UNKNOWN_DIM if x is None else x[0]
    ctx.set_output(0, (batch, int(ctx.attr("sample_size", 1))), _dtype(ctx, DataType.DT_INT32))
