"""ReplaceWithEmptyConstPass (GE's replace_with_empty_const_pass.cc): a node whose outputs are all
empty tensors (a 0 dim) becomes empty Consts: there is nothing to compute, only a shape to carry.

    x:f32[0,3] -> Relu -> y           Const(f32[0,3]) -> y

Ignored, as in GE: Consts, Data, NetOutput, control flow, collective (Hcom) ops and ops with no
output (must_keep covers the first three and ops owning subgraphs, our control flow).
"""
from __future__ import annotations

import numpy as np

from ge_core.graph import Node
from ge_core.passes.pass_utils import static_dims
from ge_core.passes.potential_folding_pass import PotentialFoldingPass, Values, all_outputs_empty


class ReplaceWithEmptyConstPass(PotentialFoldingPass):
    name = "ReplaceWithEmptyConstPass"

    def need_ignore(self, node: Node) -> bool:
        return "Hcom" in node.type   # GE's IsHcomOp: a collective runs on every rank

    def compute_potential_weight(self, node: Node) -> Values | None:
        if not all_outputs_empty(node):
            return None
        descs = node.op_desc.output_descs
        try:
            return [np.zeros(static_dims(d), d.dtype.to_numpy()) for d in descs]
        except TypeError:  # a dtype numpy lacks
            return None
        except ValueError:  # dims whose product, the zero aside, numpy cannot index: not folded
            return None
