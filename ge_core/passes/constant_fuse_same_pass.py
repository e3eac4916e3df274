"""ConstantFuseSamePass (GE's constant_fuse_same_pass.cc): Consts with the same dtype, shape and
bytes are one, the first by insertion order, so a weight is stored and loaded once. A Const with
control inputs is left alone: merging it would impose that order on the survivor's readers."""
from __future__ import annotations

from ge_core.graph import ComputeGraph, Node
from ge_core.passes.graph_pass import GraphPass
from ge_core.passes.pass_utils import const_value, merge_into, tensor_key


class ConstantFuseSamePass(GraphPass):
    name = "ConstantFuseSamePass"

    def run(self, graph: ComputeGraph) -> bool:
        first: dict[tuple, Node] = {}
        changed = False
        for node in graph:
            value = const_value(node)
            if value is None or node.in_control_anchor.peers:
                continue
            keeper = first.setdefault(tensor_key(value), node)
            if keeper is not node:
                merge_into(node, keeper)
                changed = True
        return changed
