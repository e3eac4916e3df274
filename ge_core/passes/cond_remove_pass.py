"""CondRemovePass: an If or Case whose condition is a constant becomes the branch it always takes
(GE's compiler/graph/passes/control_flow_and_stream/cond_remove_pass.cc, run beside InferShape
and ConstantFoldingPass in GraphPrepare's InferShapeForPreprocess).

GE keeps the chosen branch as a PartitionedCall and unfolds it later; here its nodes move into
the parent graph at once. Exporters write such Ifs around shapes (silero-vad squeezes a dim "if
it is 1"): once the shapes are fixed the condition folds, and the model no longer needs an If
whose untaken branch may not even infer for these shapes.

    before                                    after (c folded to true)
    c:Const(true) -> If(c, x) -> y            x -> Squeeze -> y
                     then: Squeeze(x)
                     else: Identity(x)
"""
from __future__ import annotations

import numpy as np

from ge_core.graph import ComputeGraph, GraphUtils, Node
from ge_core.graph.anchor import OutDataAnchor
from ge_core.graph.attr_names import ATTR_NAME_PARENT_NODE_INDEX
from ge_core.graph.compute_graph import DATA_TYPES, NETOUTPUT
from ge_core.passes.base_node_pass import BaseNodePass
from ge_core.passes.pass_utils import const_value, delete_if_dead, move_consumers


class CondRemovePass(BaseNodePass):
    name = "CondRemovePass"
    types = frozenset({"If", "Case"})   # constant_condition's

    def run(self, node: Node) -> None:
        cond = constant_condition(node)
        if cond is None:
            return
        names = node.op_desc.subgraph_names
        if node.type == "If":   # GE's GetCondIndex: a non-zero scalar, or a non-empty tensor
            chosen = names[0] if (bool(cond.reshape(-1)[0]) if cond.size == 1 else cond.size > 0) \
                else names[1]
        else:                   # an index past the last branch takes the last (GE's Case rule)
            index = int(cond.reshape(-1)[0])
            chosen = names[index if 0 <= index < len(names) else -1]
        results, moved = _unfold(node, node.graph.subgraph(chosen))
        for n in moved:   # the walk has not seen them: each is inferred and folded in its place
            self.add_re_pass_node(n)
        for anchor, result in zip(node.out_data_anchors, results):
            for consumer in move_consumers(anchor, result):
                self.add_re_pass_node(consumer)
        for name in list(names):
            remove_subgraph_tree(node.graph, name)
        producers = node.in_data_nodes()
        self.isolate_and_delete_node(node, {})
        for p in producers:   # the condition, now unread
            delete_if_dead(self, p)


def constant_condition(node: Node) -> np.ndarray | None:
    """The value of an If's or Case's condition when a Const gives it, else None."""
    if node.type not in ("If", "Case") or not node.in_data_anchors:
        return None
    return const_value(GraphUtils.get_in_node_cross_subgraph(node.in_data_anchors[0]))


def _unfold(node: Node, branch: ComputeGraph) -> tuple[list[OutDataAnchor], list[Node]]:
    """Move ``branch``'s nodes into ``node``'s graph (GE's UnfoldSubgraph): a Data reads the
    parent input it stands for; returns what the NetOutput read, and the moved nodes. They keep
    the If's control predecessors and successors."""
    graph = node.graph
    sources: dict[str, OutDataAnchor] = {}
    moved: dict[str, Node] = {}
    results: list[OutDataAnchor] = []
    for old in branch.topological_sort():
        if old.type in DATA_TYPES:
            peer = node.in_data_anchors[old.op_desc.get_attr(ATTR_NAME_PARENT_NODE_INDEX)].peer
            sources[old.name] = peer
            continue
        inputs = [_source(a.peer, sources, moved) for a in old.in_data_anchors]
        if old.type == NETOUTPUT:
            results = inputs
            continue
        op = old.op_desc.clone()
        op.name = graph.unique_name(old.name)
        new = moved[old.name] = graph.add_node(op)
        for sub_name in op.subgraph_names:   # a nested If now hangs off the moved node
            sub = graph.subgraph(sub_name)
            sub.set_parent(new, graph)
        for k, src in enumerate(inputs):
            if src is not None:
                GraphUtils.add_edge(src, new.in_data_anchor(k))
        for pred in old.in_control_nodes():
            if pred.name in moved:
                GraphUtils.add_edge(moved[pred.name].out_control_anchor, new.in_control_anchor)
        for pred in node.in_control_nodes():
            GraphUtils.add_edge(pred.out_control_anchor, new.in_control_anchor)
        for succ in node.out_control_nodes():
            GraphUtils.add_edge(new.out_control_anchor, succ.in_control_anchor)
    for name in list(moved):   # the moved nodes' subgraphs are theirs now, not the branch's
        for sub_name in moved[name].op_desc.subgraph_names:
            old_owner = branch.find_node(name)
            if old_owner is not None and sub_name in old_owner.op_desc.subgraph_names:
                old_owner.op_desc.remove_subgraph_name(sub_name)
    return results, list(moved.values())


def _source(peer: OutDataAnchor | None, sources: dict[str, OutDataAnchor],
            moved: dict[str, Node]) -> OutDataAnchor | None:
    if peer is None:
        return None
    owner = peer.owner
    if owner.name in sources:
        return sources[owner.name]
    return moved[owner.name].out_data_anchor(peer.idx)


def remove_subgraph_tree(graph: ComputeGraph, name: str) -> None:
    """Forget subgraph ``name`` and every subgraph its nodes own, however deep."""
    for n in graph.subgraph(name):
        for sub_name in list(n.op_desc.subgraph_names):
            remove_subgraph_tree(graph, sub_name)
    graph.remove_subgraph(name)
