"""ConvertComputeSubgraphToExecuteGraph: a control-flow node's subgraph (an If branch, a Loop
body) -> an ExeGraph the node's kernel runs (GE's graph_converter and subgraph_io_converter).

Each node is lowered by its NodeConverter as in the root graph, with a context of the
subgraph's own (so its guarders free, inside it, what it allocates), except the two ends:

    Data        InnerData: the value the parent node hands in - one of its inputs (by the
                Data's parent_node_index), or a loop's own state (by its index)
    NetOutput   InnerNetOutput: the results, each placed where the parent wants it; a device
                result must be a block the subgraph allocated itself, handed over whole, so a
                parent input, a weight, a view or a result given twice is copied first
                (IdentityAddr). The parent then frees every output the same way, whichever
                branch or iteration made it.
"""
from __future__ import annotations

from typing import Callable, Sequence

from ge_core.graph import ComputeGraph, InDataAnchor, Node
from ge_core.graph.compute_graph import DATA_TYPES, NETOUTPUT
from ge_core.runtime.v2.execute_graph import ExeGraph
from ge_core.runtime.v2.lowering.guarder import add_guarders
from ge_core.runtime.v2.lowering.lowering_context import ON_HOST, LoweringContext, LoweringError
from ge_core.runtime.v2.lowering.node_converter import converter_for

InnerData = Callable[[Node], int]   # a subgraph's Data node -> the value it stands for


def lower_subgraph(graph: ComputeGraph, lc: LoweringContext, inner_data: InnerData,
                   placements: Sequence[str]) -> ExeGraph:
    """``graph`` lowered in a context of its own; ``placements``: where each result must be
    (ON_HOST or ON_DEVICE)."""
    sub = lc.for_subgraph(graph)
    for node in graph.topological_sort():
        if node.type in DATA_TYPES:
            sub.bind(node, 0, inner_data(node))
        elif node.type == NETOUTPUT:
            if len(node.in_data_anchors) != len(placements):
                parent = graph.parent_node
                raise LoweringError(f"node {parent.name} ({parent.type}): its subgraph "
                                    f"{graph.name} gives {len(node.in_data_anchors)} results, "
                                    f"it takes {len(placements)}")
            sub.main.results = [_result(sub, a, p) for a, p in zip(node.in_data_anchors,
                                                                   placements)]
        else:
            converter_for(node)(node, sub)
    add_guarders(sub, None)
    return sub.main


def _result(sub: LoweringContext, anchor: InDataAnchor, placement: str) -> int:
    value = sub.input(anchor, placement)
    if placement == ON_HOST:
        return value
    block = sub.blocks.get(value)
    if block is not None and not block.escapes:
        block.escapes = True
        return value
    stream, stream_value = sub.stream(anchor.owner)
    copy = sub.exe.new_value(f"{sub.graph.name} result {anchor.idx}")
    identity = sub.main.add("IdentityAddr", f"{sub.graph.name} result {anchor.idx}",
                            (sub.allocator, stream_value, value), (copy,), {"stream": stream})
    sub.issue(identity, stream)
    sub.read(identity, [value], stream)
    sub.new_block(copy, identity, stream)
    sub.blocks[copy].escapes = True
    return copy
