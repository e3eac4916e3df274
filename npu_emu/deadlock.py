"""Deadlock reports: when the host waits on work no stream can progress towards, say for each
blocked stream which SQE it waits at and why that wait cannot be satisfied (the wait-for chain):
an event nobody records, a notify nobody signals, a recorder that is itself blocked or is a model
stream nobody activates."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from npu_emu.errors import DeadlockError
from npu_emu.event import EventRecordTask
from npu_emu.notify import NotifyRecordTask
from npu_emu.stream import StreamState
from npu_emu.task import EVENT_WAIT, NOTIFY_WAIT, Task
from npu_emu.trace import TraceEvent

if TYPE_CHECKING:
    from npu_emu.task_scheduler import TaskScheduler


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
        why = "; ".join(f"stream {b.stream_id} waits at {b.sqe} for {b.waits_for}"
                        for b in blocked)
    else:
        idle = [f"stream {s.id} ({s.pending} SQEs) is inactive" for s in ts.streams
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
        what, cls, attr, never = f"event {t.event_id}", EventRecordTask, "event_id", "recorded"
    elif t.kind == NOTIFY_WAIT:
        what, cls, attr, never = f"notify {t.notify_id}", NotifyRecordTask, "notify_id", \
            "signalled"
    else:   # only a unit the device has none of can stall a stream for good
        return "execution units this device does not have"
    ident = getattr(t, attr)
    for s in ts.streams:
        for task in s.queued():
            if isinstance(task, cls) and getattr(task, attr) == ident:
                if s.state == StreamState.INACTIVE:
                    return (f"{what}, recorded only by {task.where()}, and stream {s.id} is "
                            f"inactive (never activated)")
                return f"{what}, recorded by {task.where()}, which stream {s.id} never reaches"
    return f"{what}, which is never {never}"
