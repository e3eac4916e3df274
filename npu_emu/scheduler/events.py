"""What the task scheduler tells the trace bus, and the stream states it keeps: a module that
imports nothing above the scheduler, so an observer (the debugger, the race detector, the
timeline) can name these events without loading a device.

SQE traffic (submitted, dispatched, completed, failed), the sync flags the TS sets and gates on
(events, notifies), label jumps and stream activations. The objects that make these happen live
one floor up (npu_emu/core/); the TS emits the events itself, so they are defined here.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from npu_emu.base.hot_event import hot_event
from npu_emu.base.trace import TraceEvent
from npu_emu.scheduler.task import Task


class StreamState(IntEnum):
    INACTIVE = 0   # a model stream nobody has activated (or that ran to its end)
    IDLE = 1       # active, nothing queued
    READY = 2      # in the scheduler's ready heap
    RUNNING = 3    # its head SQE is in flight on a unit
    BLOCKED = 4    # its head SQE waits for an event, a notify or a unit


@dataclass(frozen=True, slots=True)
class SqeSubmitted(TraceEvent):
    task: Task


@hot_event
@dataclass(frozen=True, slots=True)
class SqeDispatched(TraceEvent):
    task: Task
    time_ns: int
    end_ns: int


@hot_event
@dataclass(frozen=True, slots=True)
class SqeCompleted(TraceEvent):
    task: Task
    time_ns: int


@dataclass(frozen=True, slots=True)
class TaskFailed(TraceEvent):
    task: Task
    message: str


@dataclass(frozen=True, slots=True)
class HostSynchronized(TraceEvent):
    stream_id: int
    time_ns: int


@dataclass(frozen=True, slots=True)
class EventRecorded(TraceEvent):
    event_id: int
    stream_id: int
    time_ns: int


@dataclass(frozen=True, slots=True)
class EventWaitBlocked(TraceEvent):
    """A stream reached a wait on an event not yet recorded and stopped there."""
    event_id: int
    stream_id: int
    time_ns: int


@dataclass(frozen=True, slots=True)
class EventWaitSatisfied(TraceEvent):
    event_id: int
    stream_id: int
    time_ns: int


@dataclass(frozen=True, slots=True)
class NotifyRecorded(TraceEvent):
    notify_id: int
    stream_id: int
    time_ns: int


@dataclass(frozen=True, slots=True)
class NotifyWaitBlocked(TraceEvent):
    """A stream reached a wait on a notify not yet signalled and stopped there."""
    notify_id: int
    stream_id: int
    time_ns: int


@dataclass(frozen=True, slots=True)
class NotifyWaitSatisfied(TraceEvent):
    notify_id: int
    stream_id: int
    time_ns: int


@dataclass(frozen=True, slots=True)
class LabelJumped(TraceEvent):
    label_id: int
    from_stream: int
    to_stream: int
    to_pos: int
    time_ns: int


@dataclass(frozen=True, slots=True)
class StreamActivated(TraceEvent):
    stream_id: int
    pos: int
    by_stream: int   # -1: the host
    time_ns: int
