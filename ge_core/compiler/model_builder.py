"""ModelBuilder: an optimised graph -> a GeModel the device can run (GE's model_builder.cc).

    AssignFunctionalLabels If/Loop/Case bodies inlined between label nodes (ge_core.compiler.label),
                           each body's streams started by its StreamActive; a stage only when the
                           graph has them (a multi-batch Case may instead become a StreamSwitchN
                           over gear streams)
    AssignLogicalStreams   stream_id on every node
    AssignMemory           offsets for every tensor (memory needs only the streams)
    InsertSyncNodesByLogicStream
                           Send/Recv (or notify) nodes for cross-stream edges, StreamActive
                           (GE's step of that name, model_builder.cc)
    GenTask                the ModelTaskDef: each node's tasks on its stream (GE's GetTaskInfo)
    SplitStreamAndRefreshTaskDef
                           streams holding more tasks than the chip allows, cut by the tasks
                           GenTask made (skipped where the runtime grows them itself: AutoSplit,
                           npu_emu/driver/soc.py); then the tasks again, on the new streams and
                           with the split's event pairs (GE's ReGetTaskInfo); GenTask and the
                           split run under an edit watch, so only the nodes edited get their op
                           defs made afresh, a node only moved keeps GenTask's with its stream

GE's order (graph_builder.cc BuildForKnownShapeGraph: GetTaskInfo, RefreshRealStream, whose
StreamAllocator::SplitStreamAndRefreshTaskDef splits by node_id_2_node_tasks, ReGetTaskInfo).
Each step is a stage on the trace bus (`step stage` stops between them) and the graph is dumped
at GE's "Build" stage.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Callable

from ge_core.compiler.compile_pipeline import StageRecord
from ge_core.compiler.failed_branch import compile_failed_branches
from ge_core.compiler.graph_dumper import DumpConfig, GraphDumper
from ge_core.ops.host_cpu_ops import HOST_ONLY_DTYPES, host_cpu_reason
from ge_core.compiler.label import assign_functional_labels
from ge_core.compiler.label.stream_switch_n_maker import ENV as SWITCHN_ENV
from ge_core.compiler.memory.mem_map import MemoryPlan
from ge_core.compiler.memory.mem_options import MemoryOptions
from ge_core.compiler.memory.memory_assigner import assign_memory
from ge_core.compiler.stream.stream_allocator import StreamAllocator
from ge_core.compiler.stream.stream_options import StreamOptions
from ge_core.compiler.stream.stream_report import SplitReport, StreamReport
from ge_core.compiler.stream.stream_split import split_streams
from ge_core.compiler.task.task_builder import task_count
from ge_core.compiler.task.ge_model_builder import (build_ge_model, refresh_totals,
                                                    regenerate_tasks)
from ge_core.compiler.task.task_generator import OpDefs
from ge_core.gc_pause import gc_paused
from ge_core.graph import ComputeGraph, validate
from ge_core.graph.attr_names import INFER_DEFERRED
from ge_core.om.ge_model import GeModel
from ge_core.om.logical_memory import FEATURE_MAP_SPAN, tensor_size
from ge_core.passes import PassRecord
from ge_core.stage_events import StageBegin, StageEnd


@dataclass(frozen=True)
class BuildOptions:
    stream: StreamOptions = field(default_factory=StreamOptions)
    memory: MemoryOptions = field(default_factory=MemoryOptions)
    dump: DumpConfig | None = field(default_factory=DumpConfig.from_env)
    # A multi-batch Case as a StreamSwitchN over gear streams, not labels (GE r1.x's env switch)
    multi_batch_with_switchn: bool = field(
        default_factory=lambda: bool(os.environ.get(SWITCHN_ENV)))
    # ge.socVersion: the chip to build for; GraphManager hands it to the runtime (GE's
    # rtSetSocVersion, gelib.cc), and the build asks the runtime for the chip's limits. None:
    # the chip the runtime drives already.
    soc_version: str | None = None


@dataclass
class BuildResult:
    ge_model: GeModel
    streams: StreamReport
    memory: MemoryPlan
    stages: list[StageRecord]
    passes: list[PassRecord]


def build_model(graph: ComputeGraph, options: BuildOptions | None = None,
                history: list[PassRecord] | None = None,
                on_plan: Callable[[MemoryPlan], None] | None = None) -> BuildResult:
    """``history``: where the stream passes' records go as each ends, and ``on_plan`` is told
    the memory plan once AssignMemory has made it, so one who looks while the build runs (a
    debugger parked in it) sees the passes done so far and the plan the offsets come from."""
    with gc_paused(graph.bus):
        return _build(graph, options or BuildOptions(), history, on_plan)


def _told(plan: MemoryPlan, on_plan: Callable[[MemoryPlan], None] | None) -> MemoryPlan:
    """Hand the plan on before AssignMemory's StageEnd, where a debugger may park."""
    if on_plan is not None:
        on_plan(plan)
    return plan


class BuildError(ValueError):
    """The graph cannot be built statically; the message names the node at fault."""


def static_build_refusal(graph: ComputeGraph) -> str | None:
    """Why ``graph`` cannot be built statically (the build's one line), or None if it can."""
    try:
        _check_static(graph)
    except BuildError as exc:
        return str(exc)
    return None


def _check_static(graph: ComputeGraph) -> None:
    for sub in graph.subgraphs:   # a branch that could not be inferred says why first
        if INFER_DEFERRED in sub.attrs:
            raise BuildError(
                f"graph {graph.name}: branch {sub.name} cannot be shape-inferred for these "
                f"inputs ({sub.attrs[INFER_DEFERRED]}), so it infers when taken: a static build "
                f"needs every shape known; GE runs such a model hybrid (gewb exec --mode hybrid)")
    for node in graph.all_nodes():
        reason = host_cpu_reason(node)
        if reason is not None:
            raise BuildError(
                f"graph {graph.name}: node {node.name} ({node.type}) runs on the host CPU engine "
                f"({reason}): a static build sinks every node to the device; GE runs such a "
                f"model hybrid (gewb exec --mode hybrid)")
        for i, desc in enumerate(node.op_desc.output_descs):
            if desc.shape.is_unknown or desc.dtype in HOST_ONLY_DTYPES:
                need = "only host memory holds it" if desc.dtype in HOST_ONLY_DTYPES else \
                    "a static build needs every shape known"
                raise BuildError(
                    f"graph {graph.name}: node {node.name} ({node.type}) output {i} is {desc}: "
                    f"{need}; GE runs such a model hybrid (gewb exec --mode hybrid)")
            try:
                size = tensor_size(desc)
            except TypeError as exc:   # a string tensor: device memory holds no such thing
                raise BuildError(f"graph {graph.name}: {node.name}:{i} is {desc}: a static "
                                 f"build sizes every tensor, and {exc}") from None
            if size > FEATURE_MAP_SPAN:   # before the planner adds sizes up in int64
                raise BuildError(f"graph {graph.name}: {node.name}:{i} is {desc}, {size:,} "
                                 f"bytes: more than the {FEATURE_MAP_SPAN:,} bytes of logical "
                                 f"addresses a feature map has")


def _build(graph: ComputeGraph, options: BuildOptions, history: list[PassRecord] | None,
           on_plan: Callable[[MemoryPlan], None] | None) -> BuildResult:
    compile_failed_branches(graph)
    _check_static(graph)
    stages: list[StageRecord] = []

    def stage(name: str, work):
        graph.bus.emit(StageBegin, name, graph.name)
        start = time.perf_counter()
        out = work()
        stages.append(StageRecord(name, len(graph), time.perf_counter() - start))
        graph.bus.emit(StageEnd, name, graph.name, len(graph))
        return out

    stream_options = options.stream
    if any(node.op_desc.subgraph_names for node in graph):   # a stage only where there is work
        stage("AssignFunctionalLabels",
              lambda: assign_functional_labels(graph, options.multi_batch_with_switchn))
    allocator = StreamAllocator(graph, stream_options, history)
    stage("AssignLogicalStreams", allocator.assign_logical_streams)
    plan = stage("AssignMemory", lambda: _told(assign_memory(graph, options.memory), on_plan))
    if plan.feature_map_bytes + plan.zero_copy_bytes > FEATURE_MAP_SPAN:
        raise BuildError(f"graph {graph.name}: the feature map needs "
                         f"{plan.feature_map_bytes + plan.zero_copy_bytes:,} bytes, more than "
                         f"the {FEATURE_MAP_SPAN:,} bytes of logical addresses it has")
    streams = stage("InsertSyncNodesByLogicStream", allocator.insert_sync_nodes_by_logic_stream)
    per_node: dict[str, int] = {}
    ops = OpDefs()

    def split_and_refresh() -> tuple[SplitReport, GeModel]:
        # a node GenTask gave no task, or the split's own event pair: its builder counts them
        split = split_streams(graph, lambda n: per_node.get(n.name) or task_count(n),
                              stream_options)
        if not split.splits and not graph.edits.since(before).any:
            return split, refresh_totals(first)   # no node changed: GenTask's tasks stand
        return split, regenerate_tasks(first, ops)
    # Watched from before GenTask makes the op defs to the split's end, so an edit between the
    # two (one made while a debugger is parked there included) marks its nodes' op defs stale.
    before = graph.edits.snapshot()
    ops.edited = graph.edits.watch()
    try:
        first = stage("GenTask", lambda: build_ge_model(graph, per_node=per_node, ops=ops))
        split, ge_model = stage("SplitStreamAndRefreshTaskDef", split_and_refresh)
    finally:
        graph.edits.unwatch()
    validate(graph)
    GraphDumper(options.dump).stage(graph, "Build")
    return BuildResult(ge_model, streams.with_split(split), plan, stages, list(allocator.history))
