"""The ``ai.onnx.ml`` domain's ops (classical machine learning), typed ``ai.onnx.ml::<Op>``."""
from __future__ import annotations

from ge_core.graph.ge_tensor import UNKNOWN_DIM
from ge_core.graph.types import DataType
from ge_core.ops.elementwise import keep_shape
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import ML_DOMAIN, qualified_type, register
from ge_core.ops.shape_rules import Dims, product


def ml(op_type: str) -> str:
    return qualified_type(ML_DOMAIN, op_type)


@register(ml("Binarizer"))
def _binarizer(ctx: InferShapeContext) -> None:
    keep_shape(ctx)  # y: x's shape and dtype, each value 0 or 1


@register(ml("LabelEncoder"))
def _label_encoder(ctx: InferShapeContext) -> None:
    # y: x's shape, the dtype of the values mapped to.
    tensor = ctx.attr("values_tensor")
    if tensor is not None:
        dtype = DataType.from_numpy(tensor.dtype)
    elif ctx.attr("values_floats") is not None:
        dtype = DataType.DT_FLOAT
    elif ctx.attr("values_int64s") is not None:
        dtype = DataType.DT_INT64
    else:
        dtype = DataType.DT_STRING
    ctx.set_output(0, ctx.dims(0), dtype)


@register(ml("ArrayFeatureExtractor"))
def _array_feature_extractor(ctx: InferShapeContext) -> None:
    # y: x's leading dims and one entry per index along the last (a vector gives one row).
    x, indices = ctx.dims(0), ctx.dims(1)
    n = UNKNOWN_DIM if indices is None else product(indices)
    dims: Dims = None if x is None else (1, n) if len(x) == 1 else x[:-1] + (n,)
    ctx.set_output(0, dims, ctx.dtype(0))


def _batch(ctx: InferShapeContext) -> int:
    x = ctx.dims(0)
    return UNKNOWN_DIM if not x else x[0] if len(x) > 1 else 1


def _score_dtype(ctx: InferShapeContext) -> DataType:
    dtype = ctx.dtype(0)
    return dtype if dtype in (DataType.DT_FLOAT, DataType.DT_DOUBLE) else DataType.DT_FLOAT


@register(ml("TreeEnsemble"), ml("TreeEnsembleRegressor"))
def _tree_ensemble(ctx: InferShapeContext) -> None:
    # y[N, n_targets]
    ctx.set_output(0, (_batch(ctx), ctx.count_attr("n_targets", 1)), _score_dtype(ctx))


@register(ml("TreeEnsembleClassifier"))
def _tree_ensemble_classifier(ctx: InferShapeContext) -> None:
    # labels[N] (int64 or string), scores[N, classes] (a one-label binary model scores two)
    ints, strings = ctx.attr("classlabels_int64s"), ctx.attr("classlabels_strings")
    labels = ints if ints is not None else strings or []
    n = _batch(ctx)
    ctx.set_output(0, (n,), DataType.DT_INT64 if ints is not None else DataType.DT_STRING)
    if ctx.n_outputs > 1:
        ctx.set_output(1, (n, max(len(labels), 2)), DataType.DT_FLOAT)
