"""If and Case -> GenIndexForIf / GenIndexForCase, then an If / Case node owning an ExeGraph per
branch (GE's if_case_converter: LoweringIf, LoweringCase). ONNX has no Case: the gear passes make
one over a copy of the graph per gear (ge_core/passes/multi_batch), its index MapIndex's.

The condition (a Case's index) is read on the host - copied back from the device when a kernel
computed it - and the node's kernel runs the chosen branch's ExeGraph. Each branch reads the
node's inputs by its Data nodes' parent_node_index, and hands back blocks of its own, which the
node's outputs then are: the parent's guarders free them after their last use.
"""
from __future__ import annotations

from ge_core.graph import ComputeGraph, Node
from ge_core.graph.attr_names import ATTR_NAME_PARENT_NODE_INDEX
from ge_core.runtime.v2.execute_graph import SUBGRAPHS
from ge_core.runtime.v2.lowering.lowering_context import (ANY, ON_DEVICE, ON_HOST,
                                                          LoweringContext, LoweringError)
from ge_core.runtime.v2.lowering.node_converter import register_node_converter
from ge_core.runtime.v2.lowering.subgraph_converter import lower_subgraph

IF_BRANCHES = ("then_branch", "else_branch")   # GE's kThenGraph, kElseGraph: branch 0 and 1


def branches(node: Node) -> list[ComputeGraph]:
    """An If's then and else graphs, or a Case's branches in order."""
    names = [node.op_desc.get_attr(a) for a in IF_BRANCHES] if node.type == "If" \
        else node.op_desc.subgraph_names
    return [node.graph.root.subgraph(name) for name in names]


@register_node_converter("If", "Case")
def lower_if_case(node: Node, lc: LoweringContext) -> None:
    stream, _ = lc.stream(node)
    graphs = branches(node)
    index = lc.exe.new_value(f"{node.name} branch")
    condition = lc.input(node.in_data_anchors[0], ON_HOST)
    if node.type == "If":
        lc.main.add("GenIndexForIf", node.name, (condition,), (index,))
    else:
        lc.main.add("GenIndexForCase", node.name, (condition,), (index,),
                    {"branch_num": len(graphs)})
    values = [lc.input(a, ANY) for a in node.in_data_anchors]

    def inner_data(data: Node) -> int:
        parent_index = data.op_desc.get_attr(ATTR_NAME_PARENT_NODE_INDEX)
        if parent_index is None or not 0 <= parent_index < len(values):
            raise LoweringError(f"node {node.name} ({node.type}): Data {data.name} of its "
                                f"branch {data.graph.name} reads input {parent_index}, the "
                                f"node has {len(values)}")
        return values[parent_index]

    placements = [ON_DEVICE] * len(node.out_data_anchors)
    subgraphs = [lower_subgraph(g, lc, inner_data, placements) for g in graphs]
    outputs = tuple(lc.exe.new_value(f"{node.name}:{i}") for i in range(len(placements)))
    run = lc.main.add(node.type, node.name, (index, *values), outputs,
                      {SUBGRAPHS: subgraphs, "stream": stream})
    lc.issue(run, stream)
    lc.read(run, values, stream)
    for i, value in enumerate(outputs):
        lc.bind(node, i, value)
        lc.new_block(value, run, stream)
