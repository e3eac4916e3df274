"""DimensionComputePass (GE's dimension_compute_pass.cc): an op that reads only its input's shape
folds once that shape is static, whatever computes the data. GE's host kernels with a
Compute(node) are Shape, ShapeN, Size, Rank and GatherShapes; ONNX has Shape and Size.

    x:f32[2,12] -> Shape -> y        Const(i64 [2,12]) -> y

A node whose outputs are all empty tensors is left to ReplaceWithEmptyConstPass (NeedIgnorePass).
"""
from __future__ import annotations

import math

import numpy as np

from ge_core.graph import Node
from ge_core.passes.constant_folding_pass import run_kernel
from ge_core.passes.pass_utils import static_dims
from ge_core.passes.potential_folding_pass import PotentialFoldingPass, Values, all_outputs_empty

DIMENSION_OPS = frozenset({"Shape", "Size"})


class DimensionComputePass(PotentialFoldingPass):
    name = "DimensionComputePass"
    types = DIMENSION_OPS

    def need_ignore(self, node: Node) -> bool:
        return node.type not in DIMENSION_OPS or all_outputs_empty(node)

    def compute_potential_weight(self, node: Node) -> Values | None:
        dims = static_dims(node.op_desc.input_descs[0])
        if dims is None or math.prod(dims) >= 1 << 63:
            # GE's NOT_CHANGED: a dynamic shape; or one whose count no int64 holds, which no
            # stand-in can have (a declared dim of 2^62: what reads the tensor refuses it)
            return None
        # the kernel reads only the shape: a stand-in of that shape, no bytes behind it
        return run_kernel(node, [np.broadcast_to(np.zeros((), np.uint8), dims)])
