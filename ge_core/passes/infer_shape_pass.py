"""InferShapePass (GE's infershape_pass.cc on infer_base_pass.cc): a node's InferShape as a node
pass, so that in one GEPass a node's shapes are known before the folding passes look at it, and
a fold upstream reaches the shapes downstream in the same walk:

    Reshape(x, Concat(2, 6*2)) -> Shape -> ConstantOfShape
    ConstantFoldingPass folds the Concat; InferShapePass on the Reshape then reads that Const and
    gives f32[2,12]; DimensionComputePass folds the Shape; ConstantFoldingPass the ConstantOfShape.

A consumer already visited whose input desc changed is visited again at once (GE's
AddChangedNodesImmediateRepass). An owner of subgraphs is inferred on its visit after them (GE's
UpdateTensorDescToParentNodeOutput): its outputs come from their NetOutputs; their Data read its
input descs themselves. An If or Case branch whose InferShape fails for the shapes at hand is
deferred to run time, as ``infer_graph`` defers it (ge_core/ops/shape_refiner.py).
"""
from __future__ import annotations

from ge_core.graph import ComputeGraph, Node
from ge_core.graph.attr_names import INFER_DEFERRED
from ge_core.graph.compute_graph import MARKED_READERS
from ge_core.ops import InferShapeError
from ge_core.ops.shape_refiner import (BRANCHING, Deferral, deferral, holds_descs, infer_outputs,
                                       is_branch, set_deferral, set_unknown,
                                       update_peer_input_desc)
from ge_core.passes.base_node_pass import BaseNodePass


class InferShapePass(BaseNodePass):
    name = "InferShapePass"

    def __init__(self) -> None:
        super().__init__()
        # the branches of an If or Case this walk infers afresh, each with its deferral so far:
        # written to the branch when its owner is inferred, after them, where it differs from
        # the last (a branch deferred again for the same reason is no edit)
        self._walked: dict[ComputeGraph, Deferral | None] = {}

    def run(self, node: Node) -> None:
        graph = node.graph
        branches = [graph.subgraph(name) for name in node.op_desc.subgraph_names] \
            if node.type in BRANCHING else []
        if node.op_desc.subgraph_names and not self.after_subgraph:
            for branch in branches:   # inferred afresh in this walk
                self._walked[branch] = None
            return
        for branch in branches:   # their deferrals, before the owner's InferShape reads them
            if branch in self._walked:
                set_deferral(branch, self._walked.pop(branch))
        if self._walked[graph] is not None if graph in self._walked \
                else graph.attrs.get(INFER_DEFERRED) is not None:
            set_unknown(node)
            return
        try:
            infer_outputs(node)
        except InferShapeError as err:
            if not is_branch(graph):
                raise
            if graph in self._walked:
                self._walked[graph] = deferral(node, err)
            else:   # walked without its owner (a walk of the branch alone)
                set_deferral(graph, deferral(node, err))
            set_unknown(node)
            return
        for consumer in self._push(node):
            self.add_immediate_re_pass_node(consumer)

    def _push(self, node: Node) -> list[Node]:
        """update_peer_input_desc, unless nothing it would write changed since the node last
        pushed (a second push of the same descs writes nothing): its own descs are new objects
        when they change, and its readers' input descs change only by an edge in or a desc
        written, both in the walk's log (InputLog); a reader there that holds the very desc
        it would be given (relinked on another input) needs none. A node re-passed each round
        pushed to every reader again: a Const read by every Gather of a model, one Gather
        folded a round."""
        logs = node.graph.edits.input_logs
        if not logs:   # no walk open (a run outside GEPass)
            return update_peer_input_desc(node)
        log = logs[-1]
        outputs = node.op_desc.output_descs
        kept = log.pushed.get(node)
        if kept is not None and len(log) - kept[0] < kept[2] \
                and len(kept[1]) == len(outputs) \
                and all(a is b for a, b in zip(kept[1], outputs)) \
                and all(holds_descs(n, node) for n in log[kept[0]:]):
            log.pushed[node] = (len(log), kept[1], kept[2])
            return []
        changed = update_peer_input_desc(node)
        readers = sum(len(a.peers) for a in node.out_data_anchors)
        if readers >= MARKED_READERS:
            log.pushed[node] = (len(log), tuple(outputs), readers)
        return changed

