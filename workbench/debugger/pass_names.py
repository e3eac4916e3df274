"""The names `break pass` accepts: GE's pass lists' passes and the node passes run inside them
(a NodePassGroup's members, Prepare's InferShapeForPreprocess among them), the engines' graph
optimizers (DVPP's joins only a graph that asks for it), ScanPass (only a graph with a Scan
runs it), and the build's passes: the logical stream chain (multi- and single-stream) and
InsertSyncNodesByLogicStream's steps.
The compiler is imported when the names are first asked for, not when a face starts."""
from __future__ import annotations

from functools import cache

ENGINES_WITH_PASSES = ("AIcoreEngine",)


def _build_pass_names() -> set[str]:
    from ge_core.compiler.stream.event_minimiser import OptimizeByTransitiveReduction
    from ge_core.compiler.stream.event_optimisers import (OptimizeByRecvEvents,
                                                          OptimizeBySendEvents,
                                                          OptimizeByStreamActivate)
    from ge_core.compiler.stream.logical_stream_allocator import LogicalStreamAllocator
    from ge_core.compiler.stream.logical_stream_passes import (AssignLabelBodyStreamsPass,
                                                               RefreshContinuousStreamsPass)
    from ge_core.compiler.stream.stream_active import (SetActiveStreamsByLabel,
                                                       SetActiveStreamsForSubgraphs)
    from ge_core.compiler.stream.stream_options import StreamOptions
    from ge_core.compiler.stream.sync_event_nodes import (GenerateSyncEventNodes,
                                                          RefreshContinuousEvents)
    from ge_core.compiler.stream.sync_events import InsertSyncEvents, SetLogicStreamIdAttr
    sync_steps = (SetLogicStreamIdAttr, SetActiveStreamsByLabel, SetActiveStreamsForSubgraphs,
                  InsertSyncEvents, OptimizeBySendEvents, OptimizeByRecvEvents,
                  OptimizeByStreamActivate, OptimizeByTransitiveReduction,
                  RefreshContinuousEvents, GenerateSyncEventNodes)
    names = {RefreshContinuousStreamsPass.name, AssignLabelBodyStreamsPass.name} | {
        step.name for step in sync_steps}
    for single in (False, True):
        chain = LogicalStreamAllocator(StreamOptions(enable_single_stream=single)).chain()
        names |= {p.name for p in chain}
    return names


@cache
def known_pass_names() -> tuple[str, ...]:
    from ge_core.compiler import pass_lists
    from ge_core.compiler.dvpp_graph_optimizer import DvppGraphOptimizer
    from ge_core.passes import NodePassGroup
    from ge_core.passes.multi_batch import MultiBatchClonePass
    from ge_core.passes.scan_pass import ScanPass
    # with no graph, a list a graph joins only with the ops it acts on has every pass it may take
    passes = [pass_lists.infer_shape_for_preprocess(), *pass_lists.original_graph_passes(),
              *pass_lists.stage2_passes(), *pass_lists.control_flow_stream_passes(),
              *pass_lists.conv_eltwise_relu(), *pass_lists.shuffle_channel_conv(),
              *pass_lists.concat_notask(),
              *pass_lists.multi_batch_passes(True), *pass_lists.autofuse_passes(True)]
    for engine in ENGINES_WITH_PASSES:
        passes += pass_lists.engine_passes(engine)
    names = {p.name for p in passes} | {MultiBatchClonePass.name, DvppGraphOptimizer.name,
                                        ScanPass.name}
    names |= {inner.name for p in passes if isinstance(p, NodePassGroup) for inner in p.passes}
    return tuple(sorted(names | _build_pass_names()))
