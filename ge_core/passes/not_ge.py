"""The passes this project runs that GE does not have, each with what stands in GE's place, so
that every face marks them: a student must not look for them in GE's source.

    shown(name, stage)   the name as a face shows it: "ScanPass (not GE)"; a pass GE has, run in
                         a stage where GE does not run it, is marked in that stage only
"""
from __future__ import annotations

NOT_GE: dict[str, str] = {
    "TransposeTransposeFusionPass": "GE removes a symmetric pair (TransOpSymmetryEliminationPass)",
    "BatchNormMulAddFusionPass": "FE fuses BatchNorm in its own passes",
    "ConvBiasAddFusionPass": "FE fuses a Conv's bias in its own passes",
    "BatchNormReluFusionPass": "FE fuses activations in UB fusion (Tbe*FusionPass)",
    "ConvReluFusionPass": "FE fuses a Conv's activation in its UB fusion passes "
                          "(TbeConv*FusionPass)",
    "ConvEltwiseReluFusionPass": "FE fuses a Conv, an Add of another tensor and a Relu in UB "
                                 "fusion (TbeConvDoubleInFusionPass), in the AI Core's subgraph",
    "ShuffleChannelConvFusionPass": "GE's parsers make a ShuffleChannel op of a channel "
                                    "shuffle, which the AI Core runs as a kernel of its own",
    "ScanPass": "GE has no Scan: TensorFlow's While and GE's ForPass stand where it sits",
    "AssignLabelBodyStreamsPass": "GE runs the logical stream passes on each If/While body "
                                  "as a graph of its own; ours are inlined first",
    "OptimizeByTransitiveReduction": "GE keeps the events its three local optimisations "
                                     "leave (OptimizeSyncEvents, stream_allocator.cc)",
}
# GE's passes, run in a stage of ours whose GE namesake does not run them (keyed by stage, pass)
NOT_GE_IN_STAGE: dict[tuple[str, str], str] = {
    ("OptimizeStage2", "ConstantFuseSamePass"):
        "our clean-up; GE's OptimizeStage2 runs it not (MergedGraphNameToPasses, graph_manager.cc)",
    ("OptimizeStage2", "PrunePass"):
        "our clean-up; GE's OptimizeStage2 runs it not (MergedGraphNameToPasses, graph_manager.cc)",
}
MARK = " (not GE)"


def shown(name: str, stage: str | None = None) -> str:
    return name + MARK if name in NOT_GE or (stage, name) in NOT_GE_IN_STAGE else name
