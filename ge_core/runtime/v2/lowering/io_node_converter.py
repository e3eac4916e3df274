"""Data -> an input tensor copied in by Main; Const -> a weight uploaded by Init (freed by
DeInit); NetOutput -> the graph's outputs (copied out once Main has synchronized). Strings and
sequences stay in host memory: their feeds and constants are host values the host CPU ops read."""
from __future__ import annotations

import numpy as np

from ge_core.ops.host_cpu_ops import HOST_ONLY_DTYPES
from ge_core.graph.types import DataType
from ge_core.graph import GeTensor, Node
from ge_core.graph.attr_names import (ATTR_MBATCH_ORIGIN_INPUT_DIMS, ATTR_NAME_PARENT_NODE_INDEX,
                                      ATTR_NAME_WEIGHTS)
from ge_core.runtime.v2.caching_mem_allocator import HOST
from ge_core.runtime.v2.lowering.lowering_context import ANY, LoweringContext, LoweringError
from ge_core.runtime.v2.lowering.node_converter import register_node_converter


@register_node_converter("Data", "RefData")
def lower_data(node: Node, lc: LoweringContext) -> None:
    if node.op_desc.has_attr(ATTR_NAME_PARENT_NODE_INDEX):
        raise LoweringError(f"node {node.name}: a subgraph's Data is not lowered here")
    op = node.op_desc
    desc = op.output_descs[0]
    name = op.output_names[0] or node.name
    feed = lc.exe.new_value(f"feed:{name}")
    lc.exe.inputs.append((name, feed))
    if desc.dtype == DataType.DT_STRING:  # checked as every feed is, but not copied
        feed, fed = lc.exe.new_value(f"{node.name}:0"), feed
        lc.main.add("CheckHostInput", name, (fed,), (feed,),
                    {"name": name, "dims": None if desc.shape.is_unknown_rank
                     else desc.shape.dims})
    if desc.dtype in HOST_ONLY_DTYPES:  # a string or sequence stays where the caller put it
        lc.bind(node, 0, feed)
        lc.on_host.add(feed)
        return
    # a geared input (multi-batch) takes any gear's shape: its dims as the gears left them
    dims = op.get_attr(ATTR_MBATCH_ORIGIN_INPUT_DIMS) or (
        None if desc.shape.is_unknown_rank else desc.shape.dims)
    tensor = lc.exe.new_value(f"{node.name}:0")
    copy = lc.main.add("CopyH2D", name, (lc.allocator, feed), (tensor,),
                       {"name": name, "dtype": desc.dtype.to_numpy().name,
                        "dims": None if dims is None else tuple(dims)})
    lc.bind(node, 0, tensor)
    lc.new_block(tensor, copy, HOST)


@register_node_converter("Const")
def lower_const(node: Node, lc: LoweringContext) -> None:
    value = node.op_desc.get_attr(ATTR_NAME_WEIGHTS)
    data = np.asarray(value.data if isinstance(value, GeTensor) else value, order="C")
    if data.dtype.kind in "OUS":  # strings have no device form: the host CPU ops read them
        value = lc.constant(f"{node.name}:0", data)
        lc.bind(node, 0, value)
        lc.on_host.add(value)
        return
    weight = lc.exe.new_value(f"{node.name}:0")
    lc.init.add("SinkWeightData", node.name, (lc.stream0,), (weight,), {"value": data})
    lc.deinit_nodes.append(("FreeWeight", node.name, (lc.stream0, weight)))
    lc.bind(node, 0, weight)


@register_node_converter("NetOutput")
def lower_net_output(node: Node, lc: LoweringContext) -> None:
    names = node.op_desc.input_names
    for anchor in node.in_data_anchors:
        lc.exe.outputs.append((names[anchor.idx] or f"output_{anchor.idx}",
                               lc.input(anchor, ANY)))


@register_node_converter("NoOp")
def lower_no_op(node: Node, lc: LoweringContext) -> None:
    """Nothing to run: its control edges ordered the compiler's graph, not the device."""
