"""NodeStreamUpdatePass: check every subgraph that needs a stream has one, then give each node
its subgraph's stream (nodes in no subgraph, the constants, get -1).

``_rts_label_node`` nodes (the LabelSet/LabelGoto that label lowering will add to a body) take
the body's default stream, the parent's, where the label switch that jumps to them runs. On the
root graph (our label lowering inlines bodies there) there is no parent: they keep their own
subgraph's stream, the one stream a lowered graph is given.
"""
from __future__ import annotations

from ge_core.compiler.stream.logical_stream_pass import LogicalStreamPass
from ge_core.compiler.stream.stream_utils import (INVALID_STREAM, StreamAllocationError,
                                                  set_stream)
from ge_core.graph import ComputeGraph
from ge_core.graph.attr_names import ATTR_NAME_RTS_LABEL_NODE


class NodeStreamUpdatePass(LogicalStreamPass):
    name = "NodeStreamUpdatePass"

    def run(self, graph: ComputeGraph) -> bool:
        subgraphs = self.ctx.subgraphs(graph)
        for sg in subgraphs:
            if not sg.engine.skip_assign_stream and sg.stream_id == INVALID_STREAM:
                raise StreamAllocationError(f"subgraph {sg.name} ({sg.engine.name}, first node "
                                            f"{sg.nodes[0].name}) has not been assigned a stream")
        stream_of_node = {node: sg.stream_id for sg in subgraphs for node in sg.nodes}
        default = self.ctx.default_stream(graph)
        changed = False
        for node in graph:
            if node in self.ctx.pinned:
                continue
            if node.op_desc.get_attr(ATTR_NAME_RTS_LABEL_NODE) and default != INVALID_STREAM:
                changed |= set_stream(node, default)
            else:
                changed |= set_stream(node, stream_of_node.get(node, INVALID_STREAM))
        return changed
