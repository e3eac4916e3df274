"""ConvEltwiseReluFusionPass: a Conv whose output is added to another tensor and then Relu'd
becomes one FusedConv, the other tensor its fourth input Z (as onnxruntime's FusedConv):

    Conv(x, W, B) -> Add/Sum(., z) -> Relu  =>  FusedConv(x, W, B, z){activation="Relu"}

ResNet's residual joins and ShuffleNet's stride-1 units end so: the sum and the activation run
on the conv's fresh output in place, with no kernel launch and no tensor of their own.

FE's UB fusion makes the same join on the AI Core (TbeConvDoubleInFusionPass, its pattern
TbeConvElemwiseReluFusion: convolution -> eltwise with another input -> eltwise). Add and Sum sit
on the Vector engine here, so the three ops first share a graph when the subgraphs are merged:
the pass runs in OptimizeStage2 (pass_lists.conv_eltwise_relu).

z must have the conv output's shape and type: the fused add broadcasts nothing. The Conv and the
Relu must be the AI Core's (or not yet placed): a compile that excludes the AI Core keeps them
apart, as FE's fusion would not run for it.
"""
from __future__ import annotations

from ge_core.graph.op_desc import kernel_attrs
from ge_core.pattern_fusion.fused_ops import FUSED_CONV
from ge_core.pattern_fusion.fusion_utils import on_ai_core
from ge_core.pattern_fusion.pattern import In, Pat, Pattern
from ge_core.pattern_fusion.pattern_fusion_pass import PatternFusionPass
from ge_core.pattern_fusion.pattern_matcher import MatchResult
from ge_core.pattern_fusion.subgraph_rewriter import Ref, Replacement

_conv = Pat("Conv", In("x"), In("w"), In("b", optional=True), name="conv", pred=on_ai_core)
_add = Pat(("Add", "Sum"), _conv, In("z"), name="add", commutative=True)  # a Sum of two
_relu = Pat("Relu", _add, name="relu", pred=on_ai_core)


class ConvEltwiseReluFusionPass(PatternFusionPass):
    name = "ConvEltwiseReluFusionPass"
    patterns = (Pattern(_relu, name="conv_eltwise_relu"),)

    def meet_requirements(self, match: MatchResult) -> bool:
        z = match.input("z")
        if z.owner is match["conv"]:   # conv + conv: z would be the fused node's own output
            return False
        y = match["conv"].op_desc.output_descs[0]
        zd = z.owner.op_desc.output_descs[z.idx]
        return not y.shape.is_unknown and zd.shape == y.shape and zd.dtype == y.dtype

    def replacement(self, match: MatchResult, rw: Replacement) -> Ref:
        return rw.add(FUSED_CONV, [match.input(n) for n in ("x", "w", "b", "z")],
                      {**kernel_attrs(match["conv"].op_desc), "activation": "Relu"})
