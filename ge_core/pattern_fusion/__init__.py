"""GE's hand-written fusions (seed 001, "两条融合路线"): a declarative pattern language, a
backtracking PatternMatcher, an atomic SubgraphRewriter, and one PatternFusionPass per fusion."""
from ge_core.pattern_fusion import fused_ops
from ge_core.pattern_fusion.activation_fusion_pass import (BatchNormReluFusionPass,
                                                           ConvReluFusionPass)
from ge_core.pattern_fusion.batchnorm_mul_add_fusion_pass import BatchNormMulAddFusionPass
from ge_core.pattern_fusion.conv_batchnorm_fusion_pass import ConvBatchnormFusionPass
from ge_core.pattern_fusion.conv_bias_add_fusion_pass import ConvBiasAddFusionPass
from ge_core.pattern_fusion.conv_eltwise_relu_fusion_pass import ConvEltwiseReluFusionPass
from ge_core.pattern_fusion.matmul_add_fusion_pass import MatMulAddFusionPass
from ge_core.pattern_fusion.pattern import In, Pat, Pattern
from ge_core.events import FusionMatched
from ge_core.pattern_fusion.pattern_fusion_pass import PatternFusionPass
from ge_core.pattern_fusion.pattern_matcher import MatchResult, PatternMatcher
from ge_core.pattern_fusion.shuffle_channel_conv_fusion_pass import ShuffleChannelConvFusionPass
from ge_core.pattern_fusion.subgraph_rewriter import NewNode, Replacement, RewriteError, rewrite

# In pipeline order: a BN first absorbs the Mul/Add after it, then folds into its Conv; a Conv
# gains its bias before its Relu fuses; the BNs left over fuse with their Relu; last (in stage 2),
# a Conv whose output a Relu reads through an Add takes both, and a Conv after a channel shuffle
# takes the shuffle.
FUSION_PASSES: tuple[type[PatternFusionPass], ...] = (
    BatchNormMulAddFusionPass, ConvBatchnormFusionPass, ConvBiasAddFusionPass, ConvReluFusionPass,
    BatchNormReluFusionPass, MatMulAddFusionPass, ConvEltwiseReluFusionPass,
    ShuffleChannelConvFusionPass)


def fusion_passes() -> list[PatternFusionPass]:
    """A fresh instance of each fusion pass, in pipeline order."""
    return [cls() for cls in FUSION_PASSES]


__all__ = ["BatchNormMulAddFusionPass", "BatchNormReluFusionPass", "ConvBatchnormFusionPass",
           "ConvBiasAddFusionPass", "ConvEltwiseReluFusionPass", "ConvReluFusionPass",
           "FUSION_PASSES", "FusionMatched", "In", "MatMulAddFusionPass", "MatchResult", "NewNode",
           "Pat", "Pattern", "PatternFusionPass", "PatternMatcher", "Replacement", "RewriteError",
           "ShuffleChannelConvFusionPass",
           "fused_ops", "fusion_passes", "rewrite"]
