"""ConvBiasAddFusionPass: a per-channel constant added after a bias-less Conv becomes its bias.

    Conv(x, W) -> Add(., c)  =>  Conv(x, W, c as [C])

c may be either operand of the Add and must add one value per output channel: [C,1,1],
[1,C,1,1], a scalar, or under opset 1-6 a [C] with broadcast=1, axis=1.
"""
from __future__ import annotations

from ge_core.graph.op_desc import kernel_attrs
from ge_core.pattern_fusion.fusion_utils import channel_vector
from ge_core.pattern_fusion.pattern import In, Pat, Pattern
from ge_core.pattern_fusion.pattern_fusion_pass import PatternFusionPass
from ge_core.pattern_fusion.pattern_matcher import MatchResult
from ge_core.pattern_fusion.subgraph_rewriter import Ref, Replacement

_conv = Pat("Conv", In("x"), In("w"), name="conv")  # a third input must be absent
_add = Pat("Add", _conv, In("c", const=True), name="add", commutative=True)


class ConvBiasAddFusionPass(PatternFusionPass):
    name = "ConvBiasAddFusionPass"
    patterns = (Pattern(_add, name="conv_bias_add"),)

    def meet_requirements(self, match: MatchResult) -> bool:
        return channel_vector(match["add"], match.input("c")) is not None

    def replacement(self, match: MatchResult, rw: Replacement) -> Ref:
        bias = channel_vector(match["add"], match.input("c"))
        return rw.add("Conv", [match.input("x"), match.input("w"),
                               rw.const(f"{match['add'].name}_bias", bias)],
                      kernel_attrs(match["conv"].op_desc))
