"""Fuse a Relu into the op before it: one kernel, no intermediate tensor.

    Conv(x, W, B) -> Relu                      =>  FusedConv(x, W, B){activation="Relu"}
    BatchNormalization(x, s, b, m, v) -> Relu  =>  FusedBatchNormRelu(x, s, b, m, v)

BatchNormReluFusionPass is for the BNs that did not fold into a Conv (DenseNet's pre-activation
BNs follow a Concat or a pool): run it after ConvBatchnormFusionPass.
"""
from __future__ import annotations

from typing import Any, ClassVar

from ge_core.graph import OpDesc
from ge_core.graph.op_desc import kernel_attrs
from ge_core.pattern_fusion.conv_batchnorm_fusion_pass import BN_PARAMS
from ge_core.pattern_fusion.fused_ops import FUSED_BATCH_NORM_RELU, FUSED_CONV
from ge_core.pattern_fusion.fusion_utils import is_inference_bn
from ge_core.pattern_fusion.pattern import In, Pat, Pattern
from ge_core.pattern_fusion.pattern_fusion_pass import PatternFusionPass
from ge_core.pattern_fusion.pattern_matcher import MatchResult
from ge_core.pattern_fusion.subgraph_rewriter import Ref, Replacement


class ActivationFusionPass(PatternFusionPass):
    """``producer`` -> Relu  =>  ``fused_type`` with the producer's inputs and ``fused_attrs``."""

    producer: ClassVar[Pat]
    fused_type: ClassVar[str]

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        cls.patterns = (Pattern(Pat("Relu", cls.producer, name="relu"),
                                name=f"{cls.producer.name}_relu"),)

    def fused_attrs(self, op: OpDesc) -> dict[str, Any]:
        raise NotImplementedError

    def replacement(self, match: MatchResult, rw: Replacement) -> Ref:
        return rw.add(self.fused_type, [match.input(i.name) for i in self.producer.inputs],
                      self.fused_attrs(match[self.producer.name].op_desc))


class ConvReluFusionPass(ActivationFusionPass):
    name = "ConvReluFusionPass"
    producer = Pat("Conv", In("x"), In("w"), In("b", optional=True), name="conv")
    fused_type = FUSED_CONV

    def fused_attrs(self, op: OpDesc) -> dict[str, Any]:
        return {**kernel_attrs(op), "activation": "Relu"}


class BatchNormReluFusionPass(ActivationFusionPass):
    name = "BatchNormReluFusionPass"
    producer = Pat("BatchNormalization", In("x"), *(In(k) for k in BN_PARAMS), name="bn",
                   pred=is_inference_bn)
    fused_type = FUSED_BATCH_NORM_RELU

    def fused_attrs(self, op: OpDesc) -> dict[str, Any]:
        return {"epsilon": op.get_attr("epsilon", 1e-5)}  # the rest only concern training
