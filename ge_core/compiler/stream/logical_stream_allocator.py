"""LogicalStreamAllocator: GE's chain of logical stream passes, per graph, then dense ids.

    multi-stream   UpdateForMdeGroup -> AssignByLabel -> IndependentStream -> AssignByDependency
                   -> NodeStreamUpdate -> UpdateForParallelGroup -> AllReduceParallel
                   -> UpdateForSkippedEngine -> OptimizeIneffectiveMultiStream
                   [-> AssignLabelBodyStreams (not GE), once label lowering inlined bodies]
    single stream  SingleStream -> NodeStreamUpdate -> UpdateForSkippedEngine

The chain runs on the root graph, then on each If/Loop body (a body's default stream is its
parent node's, so the parent must be assigned first); RefreshContinuousStreams then renumbers
the streams of all of them. Each pass is a step of a PassManager with stage
"AssignLogicalStreams": a trace event pair and a row in the pass table.
"""
from __future__ import annotations

from ge_core.compiler.stream.logical_stream_pass import LogicalStreamContext, LogicalStreamPass
from ge_core.compiler.stream.logical_stream_passes import (
    AllReduceParallelPass, AssignByDependencyPass, AssignByLabelPass, AssignLabelBodyStreamsPass,
    IndependentStreamPass,
    NodeStreamUpdatePass, OptimizeIneffectiveMultiStreamPass, RefreshContinuousStreamsPass,
    SingleStreamPass, UpdateForMdeGroupPass, UpdateForParallelGroupPass,
    UpdateForSkippedEnginePass)
from ge_core.compiler.stream.stream_options import StreamOptions
from ge_core.compiler.stream.topo_order import fix_build_order
from ge_core.graph import ComputeGraph
from ge_core.graph.attr_names import ATTR_MODEL_LABEL_NUM
from ge_core.passes import PassManager, PassRecord

STAGE = "AssignLogicalStreams"


class LogicalStreamAllocator:
    def __init__(self, options: StreamOptions, history: list[PassRecord] | None = None) -> None:
        """``history``: where the pass records go, as each pass ends (see PassManager)."""
        self.ctx = LogicalStreamContext(options)
        self.history: list[PassRecord] = [] if history is None else history

    def chain(self) -> list[LogicalStreamPass]:
        ctx = self.ctx
        if ctx.options.enable_single_stream:
            return [SingleStreamPass(ctx), NodeStreamUpdatePass(ctx),
                    UpdateForSkippedEnginePass(ctx)]
        return [UpdateForMdeGroupPass(ctx), AssignByLabelPass(ctx), IndependentStreamPass(ctx),
                AssignByDependencyPass(ctx), NodeStreamUpdatePass(ctx),
                UpdateForParallelGroupPass(ctx), AllReduceParallelPass(ctx),
                UpdateForSkippedEnginePass(ctx), OptimizeIneffectiveMultiStreamPass(ctx)]

    def assign(self, root: ComputeGraph) -> int:
        """Set ``stream_id`` on every node of ``root`` and its bodies; the number of streams."""
        fix_build_order(root)
        chain = self.chain()
        if not self.ctx.options.enable_single_stream and root.attrs.get(ATTR_MODEL_LABEL_NUM):
            chain.append(AssignLabelBodyStreamsPass(self.ctx))
        per_graph = _manager(chain, self.history)
        for graph in [root] + root.subgraphs:
            per_graph.run(graph)
        _manager([RefreshContinuousStreamsPass(self.ctx)], self.history).run(root)
        return self.ctx.next_stream


def _manager(passes: list[LogicalStreamPass], history: list[PassRecord]) -> PassManager:
    manager = PassManager(STAGE, history)
    for p in passes:
        manager.add_pass(p.name, p)
    return manager
