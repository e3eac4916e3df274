"""GE's trace events that observers name, in one module that imports nothing of GE: the
debugger, the recorder and the panes import these names without loading GE's runtime or its
fusion passes (tests/debugger/test_event_names.py checks that they do not).

Where each is emitted: TaskDistributed and ModelUnloaded by the v1 loader (DavinciModel's
DistributeTask, ModelManager's Unload; ge_core/runtime/v1/), KernelLaunched by host-scheduled
execution (v2, hybrid, single op; ge_core/runtime/v2/), FusionMatched by the pattern fusion pass
(ge_core/pattern_fusion/). The compile and load stages' StageBegin / StageEnd are in
ge_core/stage_events.py, the task types these events carry in ge_core/model_task_type.py.
"""
from __future__ import annotations

from dataclasses import dataclass

from npu_emu.base.trace import TraceEvent


@dataclass(frozen=True, slots=True)
class ModelUnloaded(TraceEvent):
    model_id: int


@dataclass(frozen=True, slots=True)
class TaskDistributed(TraceEvent):
    """A TaskInfo's Distribute, just before its task goes onto the model's stream."""

    model_id: int
    index: int           # position in the model's task list
    task_type: str       # ModelTaskType name: KERNEL, EVENT_RECORD ...
    stream_id: int       # the model's (logical) stream, as stream allocation numbered it
    rt_stream_id: int    # the device stream bound to it (what SQE events show)
    node: str
    op_type: str


@dataclass(frozen=True, slots=True)
class KernelLaunched(TraceEvent):
    """The host handed an op's kernel to a stream, at ``host_ns`` of simulated host time (the
    device cannot start it earlier: see CostModel.host_launch_ns)."""

    node: str
    op_type: str
    stream_id: int
    task_id: int
    host_ns: int


@dataclass(frozen=True, slots=True)
class FusionMatched(TraceEvent):
    """A fusion about to rewrite a match (what `break` on a fusion stops at)."""
    pass_name: str
    graph: str
    pattern: str
    nodes: str  # the matched nodes it replaces, comma-separated, inputs first
