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
from ge_core.ops import InferShapeError, infer_shape
from ge_core.ops.shape_refiner import (BRANCHING, Deferral, deferral, is_branch, set_deferral,
                                       set_unknown)
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
            changed = infer_shape(node)
        except InferShapeError as err:
            if not is_branch(graph):
                raise
            if graph in self._walked:
                self._walked[graph] = deferral(node, err)
            else:   # walked without its owner (a walk of the branch alone)
                set_deferral(graph, deferral(node, err))
            set_unknown(node)
            return
        for consumer in changed:
            self.add_immediate_re_pass_node(consumer)
