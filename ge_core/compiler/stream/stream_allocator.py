"""StreamAllocator: the stream half of GE's build (stream_allocator.cc).

    AssignLogicalStreams          stream_id on every node (LogicalStreamAllocator)
    InsertSyncNodesByLogicStream  SetLogicStreamIdAttr -> SetActiveStreamsByLabel
                                  -> SetActiveStreamsForSubgraphs -> InsertSyncEvents
                                  -> OptimizeBySendEvents -> OptimizeByRecvEvents
                                  -> OptimizeByStreamActivate [-> OptimizeByTransitiveReduction]
                                  -> RefreshContinuousEvents -> GenerateSyncEventNodes

GE assigns memory between the two (model_builder.cc); memory only needs the streams, so a
build may call the two methods apart, or ``assign_streams`` for both. SplitStreams comes after
task generation (stream_split.py). The model's stream, event and notify counts and its head
streams are left in ``graph.attrs`` for task generation, the OM and BindModelStream.
"""
from __future__ import annotations

from ge_core.compiler.stream.event_minimiser import OptimizeByTransitiveReduction, minimality
from ge_core.compiler.stream.event_optimisers import (OptimizeByRecvEvents,
                                                      OptimizeBySendEvents,
                                                      OptimizeByStreamActivate)
from ge_core.compiler.stream.logical_stream_allocator import LogicalStreamAllocator
from ge_core.compiler.stream.stream_active import (SetActiveStreamsByLabel,
                                                   SetActiveStreamsForSubgraphs, activators,
                                                   head_streams)
from ge_core.compiler.stream.stream_options import StreamOptions
from ge_core.compiler.stream.stream_report import StreamReport
from ge_core.compiler.stream.sync_event_nodes import (GenerateSyncEventNodes,
                                                      RefreshContinuousEvents)
from ge_core.compiler.stream.sync_events import (EVENT, NOTIFY, InsertSyncEvents,
                                                 SetLogicStreamIdAttr, SyncState)
from ge_core.graph import ComputeGraph
from ge_core.graph.attr_names import ATTR_MODEL_STREAM_NUM, HEAD_STREAMS
from ge_core.passes import GraphPass, PassManager, PassRecord

# GE's build step of this name (GraphBuilder's ModelBuilder::BuildModelForGetTask,
# compiler/graph/build/model_builder.cc: stream_allocator_.InsertSyncNodesByLogicStream)
SYNC_STAGE = "InsertSyncNodesByLogicStream"


class StreamAllocator:
    def __init__(self, graph: ComputeGraph, options: StreamOptions | None = None,
                 history: list[PassRecord] | None = None) -> None:
        """``history``: where the pass records go, as each pass ends (see PassManager)."""
        self.graph = graph
        self.options = options or StreamOptions()
        self.logical_streams = 0
        self.history: list[PassRecord] = [] if history is None else history

    def assign_logical_streams(self) -> int:
        allocator = LogicalStreamAllocator(self.options, self.history)
        self.logical_streams = allocator.assign(self.graph)
        self.graph.set_attr(ATTR_MODEL_STREAM_NUM, self.logical_streams)
        return self.logical_streams

    def insert_sync_nodes_by_logic_stream(self) -> StreamReport:
        g = self.graph
        state = SyncState(g, NOTIFY if self.options.use_notify else EVENT)
        ge_steps = [SetLogicStreamIdAttr(), SetActiveStreamsByLabel(),
                    SetActiveStreamsForSubgraphs(), InsertSyncEvents(state),
                    OptimizeBySendEvents(state), OptimizeByRecvEvents(state),
                    OptimizeByStreamActivate(state)]
        first = len(self.history)
        _run(ge_steps, g, self.history)
        found = minimality(state)
        minimise = [OptimizeByTransitiveReduction(state)] if self.options.minimise_events else []
        _run(minimise + [RefreshContinuousEvents(state), GenerateSyncEventNodes(state)], g,
             self.history)
        records = self.history[first:]
        g.set_attr(f"{state.kind}_num", len(state.events))
        g.set_attr(HEAD_STREAMS, head_streams(g))
        counts = tuple((r.name, dict(r.detail)["events"]) for r in records if r.detail)
        return StreamReport(
            logical_streams=self.logical_streams, physical_streams=self.logical_streams,
            sync_kind=state.kind, event_counts=counts, events_minimum=found.minimum,
            redundant_found=len(found.redundant),
            redundant_removed=len(found.redundant) if minimise else 0,
            head_streams=tuple(g.attrs[HEAD_STREAMS]), activated_streams=tuple(activators(g)),
            passes=tuple(self.history))


def _run(steps: list[GraphPass], graph: ComputeGraph, history: list[PassRecord]) -> None:
    manager = PassManager(SYNC_STAGE, history)
    for step in steps:
        manager.add_pass(step.name, step)
    manager.run(graph)


def assign_streams(graph: ComputeGraph, options: StreamOptions | None = None) -> StreamReport:
    """Logical streams, then sync nodes (and, with ``minimise_events``, the fewest events)."""
    allocator = StreamAllocator(graph, options)
    allocator.assign_logical_streams()
    return allocator.insert_sync_nodes_by_logic_stream()
