"""GE's own node types: Data (a graph input), Const (a weight or folded value) and NetOutput."""
from __future__ import annotations

from ge_core.graph.attr_names import (ATTR_MBATCH_ORIGIN_INPUT_DIMS, ATTR_NAME_INDEX,
                                      ATTR_NAME_PARENT_NODE_INDEX, ATTR_NAME_WEIGHTS, SCAN_STATE)
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register

# Node types GE creates itself; no framework op maps onto them.
GE_NODE_TYPES = frozenset({"Data", "Const", "NetOutput"})
# The RTS engine's ops (hicann/ge compiler/engines/rts_engine/): they order, start or steer
# streams and carry no data, so they mean something only on the device; a host run passes over
# them.
RTS_OPS = frozenset({"Send", "Recv", "SendNotify", "RecvNotify", "StreamActive", "StreamSwitch",
                     "StreamSwitchN", "LabelSet", "LabelGoto", "LabelGotoEx",
                     "LabelSwitchByIndex", "MemcpyAsync", "StreamMerge"})


@register("Data")
def _data(ctx: InferShapeContext) -> None:
    # A subgraph's Data with parent_node_index stands for that input of the parent node (GE's
    # convention); any other Data keeps the desc its creator declared. So does a gear's input:
    # the parent's is the largest gear, the gear's own shape is its own (GE's ShapeRefiner skips
    # a Data with _mbatch_origin_input_dims).
    index = ctx.attr(ATTR_NAME_PARENT_NODE_INDEX)
    parent = ctx.node.graph.parent_node
    if index is not None and parent is not None and not ctx.op_desc.has_attr(
            ATTR_MBATCH_ORIGIN_INPUT_DIMS):
        ctx.set_output_desc(0, parent.op_desc.input_descs[index])
    elif ctx.attr(SCAN_STATE) and parent is not None and \
            ctx.op_desc.output_descs[0].shape.is_unknown:
        # A Scan's state keeps its initial shape through every step (ONNX's Scan inference),
        # so the Loop ScanPass made reads it from the Loop's input where the model left it out.
        ctx.set_output_desc(0, parent.op_desc.input_descs[ctx.attr(ATTR_NAME_INDEX)])


@register("Const")
def _const(ctx: InferShapeContext) -> None:
    ctx.set_output_desc(0, ctx.attr(ATTR_NAME_WEIGHTS).desc)


@register("NetOutput")
def _net_output(ctx: InferShapeContext) -> None:
    """No outputs: its input descs are already its producers' output descs."""
