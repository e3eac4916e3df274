"""CommonSubexpressionEliminationPass (GE's common_subexpression_elimination_pass.cc): nodes of the
same type and attributes reading the same outputs, after the same control inputs, compute the
same thing; all but the first are merged into it. Nodes are keyed in topological order against
their current producers, so once a pair merges their consumers can match too: a duplicated
chain collapses in one run.

Not merged: graph inputs/outputs and other nodes kept for their own sake (see must_keep), nodes
without data inputs (Consts are ConstantFuseSamePass's), and random ops.
"""
from __future__ import annotations

from typing import Hashable

import numpy as np

from ge_core.graph import ComputeGraph, GeTensor, Node
from ge_core.graph.op_desc import kernel_attrs
from ge_core.passes.graph_pass import NodeLoopPass
from ge_core.passes.pass_utils import RANDOM_OPS, merge_into, must_keep, tensor_key


def _hashable(value: object) -> Hashable:
    """Attr values compared by value: tensors by their bytes, lists as tuples."""
    if isinstance(value, GeTensor):
        value = value.data
    if isinstance(value, np.ndarray):
        return tensor_key(value)
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    return value


def _key(node: Node) -> tuple | None:
    if must_keep(node) or node.type in RANDOM_OPS or not node.in_data_anchors:
        return None
    attrs = kernel_attrs(node.op_desc)
    return (node.type, len(node.out_data_anchors),
            tuple((k, _hashable(attrs[k])) for k in sorted(attrs)),
            tuple(a.peer and (a.peer.owner.name, a.peer.idx) for a in node.in_data_anchors),
            tuple(sorted(p.owner.name for p in node.in_control_anchor.peers)))


class CommonSubexpressionEliminationPass(NodeLoopPass):
    name = "CommonSubexpressionEliminationPass"

    def order(self, graph: ComputeGraph) -> list[Node]:
        return graph.topological_sort()

    def visit(self, node: Node, first: dict[tuple, Node]) -> bool:
        key = _key(node)
        if key is None:
            return False
        keeper = first.setdefault(key, node)
        if keeper is node:
            return False
        merge_into(node, keeper)
        return True
