"""The ops the multi-batch passes create (GE's own, not ONNX's): MapIndex picks the gear."""
from __future__ import annotations

from ge_core.graph.types import DataType
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register
from ge_core.ops.shape_rules import ShapeError


@register("MapIndex")
def _map_index(ctx: InferShapeContext) -> None:
    # x: the current gear's dim values; data_seq: every gear's, one after another; y: the row
    # of data_seq that equals x, the Case's branch index.
    x, table = ctx.dims(0), ctx.dims(1)
    if x is not None and table is not None and len(x) == len(table) == 1 and x[0] > 0 \
            and table[0] % x[0]:
        raise ShapeError(f"data_seq of {table[0]} values is no whole number of rows of {x[0]}")
    ctx.set_output(0, (), DataType.DT_INT32)
