"""Trace events of GE's v1 loader: what `step task` and `break distribute` stop on.

DavinciModel.init's stages are StageBegin / StageEnd events (as the compile and build stages
are), so `step stage`, `finish` and `where` see "load > DoTaskSink" with no more machinery.
"""
from __future__ import annotations

from dataclasses import dataclass

from npu_emu.base.trace import TraceEvent


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
class ModelUnloaded(TraceEvent):
    model_id: int
