"""ConvBatchnormFusionPass: fold an inference BatchNormalization into the Conv before it.

    Conv(x, W, B) -> BatchNormalization(scale, bias, mean, var)  =>  Conv(x, W', B')
        f  = scale / sqrt(var + epsilon)      one factor per output channel
        W' = W * f  (along W's axis 0)        B' = (B - mean) * f + bias   (B = 0 if absent)

Output channel m of a Conv, grouped or not, is computed from W[m] alone, so the factor lands on
W's axis 0 whatever the group. The factors are computed in float64 and rounded once; the weights
are scaled in their own dtype (within an ulp of a float64 product, and without a float64 copy of
every weight, which was most of the pass's time).
"""
from __future__ import annotations

import numpy as np

from ge_core.graph.op_desc import kernel_attrs
from ge_core.pattern_fusion.fusion_utils import is_inference_bn
from ge_core.pattern_fusion.pattern import In, Pat, Pattern
from ge_core.pattern_fusion.pattern_fusion_pass import PatternFusionPass
from ge_core.pattern_fusion.pattern_matcher import MatchResult
from ge_core.pattern_fusion.subgraph_rewriter import Ref, Replacement

BN_PARAMS = ("scale", "bias", "mean", "var")

_conv = Pat("Conv", In("x"), In("w", const=True), In("b", const=True, optional=True), name="conv")
_bn = Pat("BatchNormalization", _conv, *(In(k, const=True) for k in BN_PARAMS), name="bn",
          pred=is_inference_bn)


class ConvBatchnormFusionPass(PatternFusionPass):
    name = "ConvBatchnormFusionPass"
    patterns = (Pattern(_bn, name="conv_bn"),)

    def meet_requirements(self, match: MatchResult) -> bool:
        w = match.const("w")
        params = [match.const(k) for k in BN_PARAMS + ("b",) if match.input(k) is not None]
        return w.ndim >= 3 and w.dtype.kind == "f" and all(p.shape == w.shape[:1] for p in params)

    def replacement(self, match: MatchResult, rw: Replacement) -> Ref:
        w = match.const("w")
        scale, bias, mean, var = (match.const(k).astype(np.float64) for k in BN_PARAMS)
        b = 0.0 if match.input("b") is None else match.const("b").astype(np.float64)
        f = scale / np.sqrt(var + match["bn"].op_desc.get_attr("epsilon", 1e-5))
        new_w = w * f.astype(w.dtype).reshape((-1,) + (1,) * (w.ndim - 1))
        new_b = (b - mean) * f + bias
        name = match["bn"].name
        return rw.add("Conv", [match.input("x"), rw.const(f"{name}_weight", new_w),
                               rw.const(f"{name}_bias", new_b.astype(w.dtype))],
                      kernel_attrs(match["conv"].op_desc))
