"""ONNX's sequence and optional ops. A sequence or optional is a DT_VARIANT scalar in the IR (a
handle, not a tensor); these ops run on the host CPU engine (``ops/host_cpu_ops``).

The IR's variant records no element type, so an op that takes a tensor out of one (SequenceAt,
ConcatFromSequence, OptionalGetElement) keeps the desc the parser seeded from ONNX's own type
inference; without one its output is of unknown type and rank.
"""
from __future__ import annotations

from ge_core.graph.types import DataType
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register

VARIANT = DataType.DT_VARIANT


@register("SequenceConstruct", "SequenceEmpty", "SequenceInsert", "SequenceErase",
          "SplitToSequence", "Optional")
def _variant(ctx: InferShapeContext) -> None:
    ctx.set_output(0, (), VARIANT)


@register("SequenceMap")
def _sequence_map(ctx: InferShapeContext) -> None:
    for i in range(ctx.n_outputs):  # each output a sequence, one body result per element
        ctx.set_output(i, (), VARIANT)


@register("SequenceLength")
def _sequence_length(ctx: InferShapeContext) -> None:
    ctx.set_output(0, (), DataType.DT_INT64)


@register("OptionalHasElement")
def _optional_has_element(ctx: InferShapeContext) -> None:
    ctx.set_output(0, (), DataType.DT_BOOL)


@register("SequenceAt", "ConcatFromSequence")
def _element(ctx: InferShapeContext) -> None:
    _keep_seeded(ctx)


@register("OptionalGetElement")
def _optional_get_element(ctx: InferShapeContext) -> None:
    # From a plain tensor (18+) its desc; from an optional, the seeded one.
    if ctx.has_input(0) and ctx.dtype(0) not in (VARIANT, DataType.DT_UNDEFINED):
        return ctx.set_output(0, ctx.dims(0), ctx.dtype(0))
    _keep_seeded(ctx)


def _keep_seeded(ctx: InferShapeContext) -> None:
    if ctx.op_desc.output_descs[0].dtype == DataType.DT_UNDEFINED:
        ctx.set_output(0, None, DataType.DT_UNDEFINED)


