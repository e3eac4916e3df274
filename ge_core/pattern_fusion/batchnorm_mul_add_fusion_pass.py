"""BatchNormMulAddFusionPass: a per-channel Mul or Add after an inference BatchNormalization folds
into its scale and bias (Caffe2's SpatialBN + Mul + Add, as in DenseNet and Inception v2).

    BN(x; scale, bias) * k  =>  BN(x; scale * k, bias * k)
    BN(x; scale, bias) + k  =>  BN(x; scale, bias + k)

k is a Const with one value per channel (either operand). Folding these first lets the BN
fold into a Conv before it, or fuse with the Relu after it.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ge_core.graph.op_desc import kernel_attrs
from ge_core.pattern_fusion.fusion_utils import channel_vector, is_inference_bn
from ge_core.pattern_fusion.pattern import In, Pat, Pattern
from ge_core.pattern_fusion.pattern_fusion_pass import PatternFusionPass
from ge_core.pattern_fusion.pattern_matcher import MatchResult
from ge_core.pattern_fusion.subgraph_rewriter import Ref, Replacement

Fold = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]

# op after the BN -> (scale, bias, k) -> (new scale, new bias)
FOLDS: dict[str, Fold] = {
    "Mul": lambda scale, bias, k: (scale * k, bias * k),  # BN(x) * k
    "Add": lambda scale, bias, k: (scale, bias + k),      # BN(x) + k
}

_bn = Pat("BatchNormalization", In("x"), In("scale", const=True), In("bias", const=True),
          In("mean"), In("var"), name="bn", pred=is_inference_bn)


class BatchNormMulAddFusionPass(PatternFusionPass):
    name = "BatchNormMulAddFusionPass"
    patterns = tuple(Pattern(Pat(op, _bn, In("k", const=True), name="op", commutative=True),
                             name=f"bn_{op.lower()}") for op in FOLDS)

    def meet_requirements(self, match: MatchResult) -> bool:
        k = channel_vector(match["op"], match.input("k"))
        return k is not None and match.const("scale").shape == match.const("bias").shape == k.shape

    def replacement(self, match: MatchResult, rw: Replacement) -> Ref:
        k = channel_vector(match["op"], match.input("k")).astype(np.float64)
        scale, bias = (match.const(n) for n in ("scale", "bias"))
        new_scale, new_bias = FOLDS[match["op"].type](scale.astype(np.float64),
                                                      bias.astype(np.float64), k)
        name = match["op"].name
        return rw.add("BatchNormalization",
                      [match.input("x"), rw.const(f"{name}_scale", new_scale.astype(scale.dtype)),
                       rw.const(f"{name}_bias", new_bias.astype(bias.dtype)),
                       match.input("mean"), match.input("var")],
                      kernel_attrs(match["bn"].op_desc))
