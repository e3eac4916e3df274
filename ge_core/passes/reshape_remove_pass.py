"""ReshapeRemovePass (GE's reshape_remove_pass.cc): every static Reshape goes, and so does the
shape Const it leaves unread. Device memory is flat and a kernel reads a tensor by its own input
desc, so a Reshape copies nothing; the consumer keeps its input desc, the new shape.

    x:f32[2,3] -> Reshape(x, Const[6]) -> y:f32[6]        x -> y (y's input desc: f32[6])

Kept, as in GE: a Reshape with an unknown shape, one in a graph with unknown shapes, one that
gives a subgraph its output (a parent's InferShape reads it), and one read by GatherShapes or
GatherND (they want their input's shape as it is). ReshapeRecoveryPass puts a Reshape back
wherever a producer's shape and its consumer's differ (OptimizeStage1_3, right after).
"""
from __future__ import annotations

from ge_core.graph import ComputeGraph, GraphUtils, Node
from ge_core.graph.compute_graph import NETOUTPUT
from ge_core.passes.base_node_pass import BaseNodePass

KEEP_INPUT_SHAPE = frozenset({"GatherShapes", "GatherND"})   # GE's kInputShapeContinue


def _kept(node: Node) -> bool:
    descs = (*node.op_desc.input_descs[:1], *node.op_desc.output_descs)
    if any(d.shape.is_unknown for d in descs):
        return True   # GE's GetNodeUnknownShapeStatus
    if node.graph.parent_node is not None and any(n.type == NETOUTPUT
                                                  for n in node.out_data_nodes()):
        return True   # GE's IsOutputOfSubGraph
    return any(n.type in KEEP_INPUT_SHAPE for n in node.out_data_nodes())


class ReshapeRemovePass(BaseNodePass):
    name = "ReshapeRemovePass"
    types = frozenset({"Reshape"})

    def __init__(self) -> None:
        super().__init__()
        self._dynamic: dict[ComputeGraph, bool] = {}   # GE's GetGraphUnknownFlag, per graph

    def run(self, node: Node) -> None:
        if node.type != "Reshape" or node.in_data_anchors[0].peer is None or _kept(node):
            return
        graph = node.graph
        if graph not in self._dynamic:
            self._dynamic[graph] = GraphUtils.is_unknown_shape_graph(graph)
        if self._dynamic[graph]:
            return
        shape = node.in_data_anchors[1].peer if len(node.in_data_anchors) > 1 else None
        self.isolate_and_delete_node(node, {0: 0})
        const = shape.owner if shape is not None else None
        # its readers asked by its anchors: a shape Const read by every Reshape of a chain
        # would make each removal list them all
        if const is not None and const.type == "Const" \
                and not any(a.peers for a in const.out_data_anchors) \
                and not const.in_control_anchor.peers:
            self.isolate_and_delete_node(const, {})
