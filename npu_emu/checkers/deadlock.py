"""Deadlock reports: when the host waits on work no stream can progress towards, say for each
blocked stream which SQE it waits at and why that wait cannot be satisfied (the wait-for chain):
an event nobody records, a notify nobody signals, a recorder that is itself blocked or is a model
stream nobody activates."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from npu_emu.base.errors import DeadlockError
from npu_emu.base.trace import TraceEvent
from npu_emu.scheduler.events import StreamState
from npu_emu.scheduler.task import EVENT_WAIT, NOTIFY_WAIT, Task, TaskType

if TYPE_CHECKING:
    from npu_emu.scheduler.task_scheduler import TaskScheduler


# The task types that set a flag a wait can be waiting for (an EndGraph records its notify).
RECORDS_EVENT = (TaskType.EVENT_RECORD,)
RECORDS_NOTIFY = (TaskType.NOTIFY_RECORD, TaskType.MODEL_END_GRAPH)


@dataclass(frozen=True, slots=True)
class BlockedStream:
    stream_id: int
    sqe: str
    waits_for: str


@dataclass(frozen=True, slots=True)
class DeadlockFound(TraceEvent):
    message: str


def deadlock_error(ts: TaskScheduler, waiter: str) -> DeadlockError:
    blocked = tuple(BlockedStream(s.id, s.waiting.where(), waits_for(ts, s.waiting))
                    for s in ts.streams if s.state == StreamState.BLOCKED)
    if blocked:
        name = ts.device.runtime.stream_name
        why = "; ".join(f"stream {name(b.stream_id)} waits at {b.sqe} for {b.waits_for}"
                        for b in blocked)
    else:
        idle = [f"stream {s.label} ({s.pending} SQEs) is inactive" for s in ts.streams
                if s.state == StreamState.INACTIVE and s.model is not None and s.pending]
        why = "no stream is running" + (": " + ", ".join(idle) if idle else "")
    message = f"{waiter} can never finish: {why}"
    if blocked != ts.last_deadlock:   # the same standstill met again by another wait
        ts.last_deadlock = blocked
        ts.device.runtime.report_fault("deadlock", message)
        ts.bus.emit(DeadlockFound, message)
    return DeadlockError(message, blocked)


def waits_for(ts: TaskScheduler, t: Task) -> str:
    """Why the wait SQE ``t`` cannot pass, in words: a link of the wait-for chain."""
    if t.kind == EVENT_WAIT:
        what, recorders, attr, never = f"event {t.event_id}", RECORDS_EVENT, "event_id", \
            "recorded"
    elif t.kind == NOTIFY_WAIT:
        what, recorders, attr, never = f"notify {t.notify_id}", RECORDS_NOTIFY, "notify_id", \
            "signalled"
    else:   # only a unit the device has none of can stall a stream for good
        return "execution units this device does not have"
    ident = getattr(t, attr)
    for s in ts.streams:
        for task in s.queued():
            if task.type in recorders and getattr(task, attr) == ident:
                if s.state == StreamState.INACTIVE:
                    return (f"{what}, recorded only by {task.where()}, and stream {s.label} is "
                            f"inactive (never activated)")
                return f"{what}, recorded by {task.where()}, which stream {s.label} never reaches"
    return f"{what}, which is never {never}"
