"""String ops. They run on the host CPU engine (``ops/host_cpu_ops``): strings live in host
memory. TfIdfVectorizer counts n-grams of string tokens there, of integer token ids on AI CPU."""
from __future__ import annotations

from ge_core.graph.ge_tensor import UNKNOWN_DIM
from ge_core.graph.types import DataType
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register
from ge_core.ops.shape_rules import ShapeError, broadcast


@register("StringConcat")
def _string_concat(ctx: InferShapeContext) -> None:
    ctx.set_output(0, broadcast(ctx.dims(0), ctx.dims(1)), DataType.DT_STRING)


@register("RegexFullMatch")
def _regex_full_match(ctx: InferShapeContext) -> None:
    if ctx.attr("pattern") is None:   # optional in the schema, which gives it no default
        raise ShapeError("no pattern to match (its attribute `pattern`)")
    ctx.set_output(0, ctx.dims(0), DataType.DT_BOOL)


@register("StringSplit")
def _string_split(ctx: InferShapeContext) -> None:
    # Y: x's shape + [pieces] (known only from the data); Z: x's shape, each count.
    x = ctx.dims(0)
    ctx.set_output(0, None if x is None else x + (UNKNOWN_DIM,), DataType.DT_STRING)
    ctx.set_output(1, x, DataType.DT_INT64)


@register("StringNormalizer")
def _string_normalizer(ctx: InferShapeContext) -> None:
    # [C] or [1, C]; stopwords may drop elements, so C is known only from the data.
    x = ctx.dims(0)
    dims = None if x is None else x[:-1] + (UNKNOWN_DIM if ctx.attr("stopwords") else x[-1],)
    ctx.set_output(0, dims, DataType.DT_STRING)


@register("TfIdfVectorizer")
def _tf_idf_vectorizer(ctx: InferShapeContext) -> None:
    # [C] -> [width], [N, C] -> [N, width]: a float count per pooled n-gram's output index.
    x = ctx.dims(0)
    indexes = ctx.attr("ngram_indexes") or []
    width = max(indexes) + 1 if len(indexes) else 0
    dims = None if x is None else (width,) if len(x) < 2 else (x[0], width)
    ctx.set_output(0, dims, DataType.DT_FLOAT)
