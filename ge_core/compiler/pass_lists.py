"""Which passes run in which stage, in GE's order (seed 001, "三个阶段优化").

Stage 1 sees the whole graph before any engine is chosen, so fusions that span engines (a
Conv on AI Core with its bias Add on the Vector unit) happen there. Stage 2 is each engine's
own optimiser on its subgraph: AI Core fuses what it will run as one kernel. Stage 3 cleans up
what the merge exposed.

Functions, not constants: pass objects keep per-run state, so every run (and every engine
subgraph on the thread pool) gets fresh instances.
"""
from __future__ import annotations

from ge_core.passes import GraphPass, NodePassGroup
from ge_core.passes.cast_remove_pass import CastRemovePass
from ge_core.passes.common_subexpression_elimination_pass import CommonSubexpressionEliminationPass
from ge_core.passes.constant_fuse_same_pass import ConstantFuseSamePass
from ge_core.passes.dimension_adjust_pass import DimensionAdjustPass
from ge_core.passes.identity_remove_pass import IdentityRemovePass
from ge_core.passes.infer_shape_and_fold_pass import InferShapeAndFoldPass
from ge_core.passes.prune_pass import PrunePass
from ge_core.passes.reshape_remove_pass import ReshapeRemovePass
from ge_core.passes.transpose_transpose_fusion_pass import TransposeTransposeFusionPass
from ge_core.pattern_fusion import (BatchNormMulAddFusionPass, BatchNormReluFusionPass,
                                    ConvBatchNormFusionPass, ConvBiasAddFusionPass,
                                    ConvReluFusionPass, MatMulAddFusionPass)


def original_graph_passes() -> list[GraphPass]:
    return [
        InferShapeAndFoldPass(),
        ConstantFuseSamePass(),
        CommonSubexpressionEliminationPass(),
        NodePassGroup("OriginalGraphNodePasses", [
            DimensionAdjustPass(), ReshapeRemovePass(), CastRemovePass(), IdentityRemovePass(),
            TransposeTransposeFusionPass()]),
        BatchNormMulAddFusionPass(),
        ConvBiasAddFusionPass(),
        MatMulAddFusionPass(),
        PrunePass(),
    ]


_ENGINE_PASSES = {
    "AIcoreEngine": lambda: [ConvBatchNormFusionPass(), ConvReluFusionPass(),
                             BatchNormReluFusionPass()],
}


def engine_passes(engine: str) -> list[GraphPass]:
    """An engine's own subgraph optimisations (none for engines without an optimiser)."""
    make = _ENGINE_PASSES.get(engine)
    return make() if make else []


def after_merge_passes() -> list[GraphPass]:
    return [InferShapeAndFoldPass(), ConstantFuseSamePass(), PrunePass()]
