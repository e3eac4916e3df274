"""PotentialFoldingPass: the base of GE's three folding node passes (potential_folding_pass.cc,
on folding_pass.cc). Each says which nodes it ignores and computes a node's output values; the
base replaces the node with one Const per used output.

    ReplaceWithEmptyConstPass   every output an empty tensor (a 0 dim)
    DimensionComputePass        Shape, Size: the values are the input desc's dims
    ConstantFoldingPass         every data input a Const: the host kernel computes them

GE's Prepare (InferShapeForPreprocess) builds the first two with need_fold=false: they only mark
the node a potential const, and PotentialConstTakenEffectPass folds the marked nodes once the
walk is done. Here every fold happens at the node's visit; the graph after the walk is the same.
"""
from __future__ import annotations

import numpy as np

from ge_core.graph import Node
from ge_core.graph.types import DataType
from ge_core.passes.base_node_pass import BaseNodePass
from ge_core.passes.pass_utils import make_const, must_keep, replace_node, static_dims

Values = list[np.ndarray]


class PotentialFoldingPass(BaseNodePass):
    def run(self, node: Node) -> None:
        # three passes ask this of every node Prepare visits: plain tests, no generator, the
        # commonest refusal (a Const, a third of the visits) first
        op = node.op_desc
        if op.type == "Const" or must_keep(node) or self.need_ignore(node):
            return
        for desc in op.output_descs:
            if desc.dtype == DataType.DT_VARIANT:
                return   # a variant (a sequence, an optional) no Const can hold
        values = self.compute_potential_weight(node)
        if values is not None:
            fold(self, node, values)

    def need_ignore(self, node: Node) -> bool:
        """GE's NeedIgnorePass: nodes this pass leaves to another."""
        return False

    def compute_potential_weight(self, node: Node) -> Values | None:
        """GE's ComputePotentialWeight: one value per output, or None (not foldable)."""
        raise NotImplementedError


def all_outputs_empty(node: Node) -> bool:
    """GE's AreAllOutputsEmptyShape: every output's static shape has a 0 dim."""
    descs = node.op_desc.output_descs
    for desc in descs:   # the 0 first: few shapes have one, and it is the cheaper test
        if 0 not in desc.shape.dims or static_dims(desc) is None:
            return False
    return bool(descs)


def fold(pass_: BaseNodePass, node: Node, values: Values) -> None:
    """GE's FoldingPass::Folding: one Const per used output, in the node's place. The Consts keep
    the order the node had: they take its control inputs and its Const inputs' ones."""
    consts = [_const(node, i, v) if anchor.peers else None
              for i, (anchor, v) in enumerate(zip(node.out_data_anchors, values))]
    new = [c for c in consts if c is not None]
    # The value also waited for what its Const inputs wait for (a Const in a branch hangs on the
    # branch's control edge); the node's own control inputs pass on in replace_node.
    waits = [p for n in node.in_data_nodes() if n.type == "Const"
             for p in n.in_control_anchor.peers]
    for const in new:
        for p in waits:
            p.link_to(const.in_control_anchor)
    replace_node(pass_, node, [c and c.out_data_anchor(0) for c in consts], new)


def _const(node: Node, idx: int, value: np.ndarray) -> Node:
    # Named after the output's framework tensor (a light model's weight name), else the node.
    tensor = node.op_desc.output_names[idx]
    const = make_const(node.graph, tensor or f"{node.name}_{idx}", value)
    const.op_desc.set_output_name(0, tensor)
    return const
