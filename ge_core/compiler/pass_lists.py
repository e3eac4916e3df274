"""Which passes run in which stage, in GE's order (seed 001, "三个阶段优化").

Stage 1 sees the whole graph before any engine is chosen, so fusions that span engines (a
Conv on AI Core with its bias Add on the Vector unit) happen there. Stage 2 is each engine's
own optimiser on its subgraph: AI Core fuses what it will run as one kernel. Stage 3 cleans up
what the merge exposed.

Functions, not constants: pass objects keep per-run state, so every run (and every engine
subgraph on the thread pool) gets fresh instances.
"""
from __future__ import annotations

from collections.abc import Collection

from ge_core.autofuse import AutoFusePass
from ge_core.compiler.dvpp_graph_optimizer import DvppGraphOptimizer, wants_dvpp
from ge_core.graph import ComputeGraph
from ge_core.passes import GraphPass, NodePassGroup
from ge_core.passes.cast_remove_pass import CastRemovePass
from ge_core.passes.common_subexpression_elimination_pass import CommonSubexpressionEliminationPass
from ge_core.passes.concat_notask_pass import CONCAT_TYPES, ConcatNotaskPass
from ge_core.passes.cond_remove_pass import CondRemovePass
from ge_core.passes.constant_folding_pass import ConstantFoldingPass
from ge_core.passes.constant_fuse_same_pass import ConstantFuseSamePass
from ge_core.passes.control_flow_and_stream import (AttachStreamLabelPass, MergeInputMemcpyPass,
                                                    MergeToStreamMergePass,
                                                    SwitchToStreamSwitchPass)
from ge_core.passes.dimension_adjust_pass import DimensionAdjustPass
from ge_core.passes.dimension_compute_pass import DimensionComputePass
from ge_core.passes.identity_pass import IdentityPass
from ge_core.passes.infer_shape_pass import InferShapePass
from ge_core.passes.multi_batch import MultiBatchClonePass, MultiBatchOptions, MultiBatchPass
from ge_core.passes.prune_pass import PrunePass
from ge_core.passes.replace_with_empty_const_pass import ReplaceWithEmptyConstPass
from ge_core.passes.reshape_recovery_pass import ReshapeRecoveryPass
from ge_core.passes.reshape_remove_pass import ReshapeRemovePass
from ge_core.passes.scan_pass import ScanPass
from ge_core.passes.transpose_transpose_fusion_pass import TransposeTransposeFusionPass
from ge_core.pattern_fusion import (BatchNormMulAddFusionPass, BatchNormReluFusionPass,
                                    ConvBatchnormFusionPass, ConvBiasAddFusionPass,
                                    ConvEltwiseReluFusionPass, ConvReluFusionPass,
                                    MatMulAddFusionPass, ShuffleChannelConvFusionPass)


def graph_equivalent_transformation(graph: ComputeGraph) -> list[GraphPass]:
    """GE's GraphPrepare::GraphEquivalentTransformation, first in NormalizeGraph: GE's ForPass
    turns a For into a While there; our ScanPass turns an ONNX Scan into a Loop the same way.
    It joins only when the graph has a Scan, so other models' pass tables stay as they were."""
    return [ScanPass()] if graph.holds("Scan") else []


def process_multi_batch(options: MultiBatchOptions) -> list[GraphPass]:
    """GE's multibatch::ProcessMultiBatch, in NormalizeGraph: with gear options, the graph
    becomes a Case over one copy per gear. (GE's list also has CreateSubGraphWithScopePass and
    SubgraphMultiDimsClonePass, for scopes and gears inside subgraphs, which we do not model.)"""
    return [MultiBatchClonePass(options)] if options.enabled else []


def infer_shape_for_preprocess() -> NodePassGroup:
    """GE's GraphPrepare::InferShapeForPreprocess (graph_prepare.cc), Prepare's InferShape: one
    GEPass of these node passes in GE's order, each visited node inferred, then folded. GE's list
    also has AssertPass, SwitchDeadBranchElimination and MergePass (TF control flow),
    SplitShapeNPass, ConstantClipPass and InferValueRangePass, which we do not model."""
    return NodePassGroup("InferShapeForPreprocess", [
        CondRemovePass(), InferShapePass(), ReplaceWithEmptyConstPass(), DimensionComputePass(),
        ConstantFoldingPass()])


def original_graph_passes() -> list[GraphPass]:
    """GE's OptimizeStage1_2 GEPass (graph_manager.cc) runs 17 node passes, among them, in this
    order, CastRemovePass, ReshapeRemovePass, TransOpSymmetryEliminationPass (our
    TransposeTransposeFusionPass, not GE, stands in its place) and DimensionAdjustPass. It has
    no IdentityPass: GE runs that in Prepare's PrepareOptimize GEPass (graph_prepare.cc) and
    again after OptimizeStage1_3. Our group keeps all five in one walk, in its own order; the
    lessons say so where they show it."""
    return [
        ConstantFuseSamePass(),
        CommonSubexpressionEliminationPass(),
        NodePassGroup("OptimizeStage1_2", [
            DimensionAdjustPass(), ReshapeRemovePass(), CastRemovePass(), IdentityPass(),
            TransposeTransposeFusionPass()]),
        ReshapeRecoveryPass(),   # GE's OptimizeStage1_3 runs it right after OptimizeStage1_2
        BatchNormMulAddFusionPass(),
        ConvBiasAddFusionPass(),
        MatMulAddFusionPass(),
        PrunePass(),
    ]


def engine_graph_optimizers(graph: ComputeGraph) -> list[GraphPass]:
    """The engines' original-graph optimizers, which GE's OptimizeOriginalGraph runs before the
    stage's own passes; each joins only when it has work (DVPP's: an op asks for DVPP)."""
    return [DvppGraphOptimizer()] if wants_dvpp(graph) else []


def autofuse_passes(enabled: bool) -> list[GraphPass]:
    """GE's AutofuseOptimize (GraphManager::AfterPrecisionRefine): after the original graph's
    pattern fusions, before stage 1's clean-up; only when AUTOFUSE_FLAGS enables it."""
    return [AutoFusePass()] if enabled else []


def control_flow_stream_passes(graph: ComputeGraph | None = None) -> list[GraphPass]:
    """TensorFlow-style Switch/Merge as GE's stream ops (passes/control_flow_and_stream), just
    before MultiBatchPass as in GE's OptimizeStage1_3 (GE runs MergeInputMemcpyPass earlier, in
    OptimizeStage1_1); only when ``graph`` has them, so other models' pass tables stay (no
    graph: all of them, for the names a breakpoint may take)."""
    if graph is not None and not any(n.type in ("Switch", "Merge") for n in graph):
        return []
    return [MergeInputMemcpyPass(), MergeToStreamMergePass(), SwitchToStreamSwitchPass(),
            AttachStreamLabelPass()]


def multi_batch_passes(multi_batch: bool) -> list[GraphPass]:
    """What a graph with gears runs at the end of stage 1 (GE's OptimizeStage1_3::MultiBatchPass)
    and again before the build (OptimizeStage2::ControlAttrOptimize::MultiBatchPass), so nodes
    the optimisers made inside a gear carry its label too."""
    return [MultiBatchPass()] if multi_batch else []


_ENGINE_PASSES = {
    "AIcoreEngine": lambda: [ConvBatchnormFusionPass(), ConvReluFusionPass(),
                             BatchNormReluFusionPass()],
}


def engine_passes(engine: str) -> list[GraphPass]:
    """An engine's own subgraph optimisations (none for engines without an optimiser)."""
    make = _ENGINE_PASSES.get(engine)
    return make() if make else []


def stage2_passes() -> list[GraphPass]:
    """GE's OptimizeStage2 GEPass (MergedGraphNameToPasses in graph_manager.cc) without
    AssignRemovePass, which has no Assign to remove here, and without ReshapeRemovePass: GE's
    build reads flat memory by each kernel's desc, but our host-scheduled executors (v2,
    hybrid) hand a kernel its producer's shape, so the Reshapes ReshapeRecoveryPass put back
    stay; then our clean-ups."""
    return [NodePassGroup("MergedGraphNameToPasses", [
                ConstantFoldingPass(), CondRemovePass(), DimensionAdjustPass()]),
            ConstantFuseSamePass(), PrunePass()]


def conv_eltwise_relu(graph: ComputeGraph | None = None) -> list[GraphPass]:
    """The AI Core's Conv + Add + Relu fusion, once the merge has put the Vector engine's Add
    back beside the AI Core's Conv and Relu (see conv_eltwise_relu_fusion_pass). It joins only
    when the graph has the three, so other models' pass tables stay as they were (no graph: it
    joins, for the names a breakpoint may take)."""
    return [ConvEltwiseReluFusionPass()] if _holds_all(graph, ("Conv",), ("Add", "Sum"),
                                                       ("Relu",)) else []


def shuffle_channel_conv(graph: ComputeGraph | None = None) -> list[GraphPass]:
    """A Conv's fold of the channel shuffle before it (see shuffle_channel_conv_fusion_pass),
    once the merge has put the Vector engine's Transpose beside the AI Core's Conv. It joins
    only when the graph has a Reshape, a Transpose and a Conv, so other models' pass tables
    stay as they were (no graph: it joins, for the names a breakpoint may take)."""
    return [ShuffleChannelConvFusionPass()] if _holds_all(graph, ("Reshape",), ("Transpose",),
                                                          ("Conv",)) else []


def concat_notask(graph: ComputeGraph | None = None) -> list[GraphPass]:
    """GE's OptimizeStage2 ends with ConcatNotaskPass, once the graph is stable
    (graph_manager.cc). It joins only when the graph has a Concat, so other models' pass
    tables stay as they were (no graph: it joins, for the names a breakpoint may take)."""
    return [ConcatNotaskPass()] if _holds_all(graph, CONCAT_TYPES) else []


def _holds_all(graph: ComputeGraph | None, *needs: Collection[str]) -> bool:
    """Whether ``graph`` holds a node of each of ``needs``' type sets; True for no graph (a list
    asked with none returns every pass it may hold: the names a breakpoint may take)."""
    return graph is None or all(graph.holds(*types) for types in needs)
