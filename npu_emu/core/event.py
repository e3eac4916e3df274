"""Events: stream-to-stream synchronisation (aclrtRecordEvent / aclrtStreamWaitEvent).

Ascend hardware events are flags: a record task sets the flag when it retires, a wait task
blocks its stream until the flag is set, ``aclrtResetEvent`` clears it. Several streams may wait
on one recorded event. Waits inside a model (and in a captured graph) reset the flag as they
pass, so that each execution of the model needs a fresh record, as GE's per-iteration
send/recv pairs assume. The flags live in the device's ``event_flags`` bytearray, which the
scheduler's loop tests directly; an Event object is only the handle.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from npu_emu.base.errors import ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, AclError
from npu_emu.scheduler.task import EFFECT, EVENT_WAIT, Task, TaskType

if TYPE_CHECKING:
    from npu_emu.core.links import DeviceLink
    from npu_emu.scheduler.protocols import SchedStream
    from npu_emu.scheduler.task_scheduler import TaskScheduler


class Event:
    def __init__(self, device: DeviceLink, event_id: int) -> None:
        self.device = device
        self.id = event_id
        self.destroyed = False

    @property
    def recorded(self) -> bool:
        return bool(self.device.event_flags[self.id])

    @property
    def timestamp_ns(self) -> int | None:
        """Simulated time of the last record's retirement (None before any)."""
        return self.device.event_times.get(self.id)

    def query(self) -> bool:
        """aclrtQueryEventStatus: complete or not, without driving the device."""
        self.device.runtime.capture.check_not_capturing_any("query an event")
        return self.recorded

    def synchronize(self) -> None:
        """aclrtSynchronizeEvent: drive the device until the event is recorded."""
        self.device.runtime.capture.check_not_capturing_any("synchronize an event")
        self.device.scheduler.run_until_flag(self.device.event_flags, self.id,
                                             f"event {self.id}")

    def elapsed_ms(self, end: Event) -> float:
        start_ns, end_ns = self.timestamp_ns, end.timestamp_ns
        if start_ns is None or end_ns is None:
            raise AclError("elapsed time of an event that was never recorded",
                           ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID)
        return (end_ns - start_ns) / 1e6

    def __repr__(self) -> str:
        return f"Event({self.id})"


class EventRecordTask(Task):
    __slots__ = ("event_id",)

    def __init__(self, event_id: int, duration: int) -> None:
        super().__init__(TaskType.EVENT_RECORD, f"EventRecord(e{event_id})", duration,
                         kind=EFFECT)
        self.event_id = event_id

    def complete(self, ts: TaskScheduler, stream: SchedStream) -> None:
        ts.record_event(self.event_id, stream)


class EventWaitTask(Task):
    """Gated in the scheduler's dispatch; ``reset`` clears the flag as the wait passes."""

    __slots__ = ("event_id", "reset")

    def __init__(self, event_id: int, duration: int, reset: bool) -> None:
        super().__init__(TaskType.STREAM_WAIT_EVENT, f"StreamWaitEvent(e{event_id})", duration,
                         kind=EVENT_WAIT)
        self.event_id, self.reset = event_id, reset


class EventResetTask(Task):
    __slots__ = ("event_id",)

    def __init__(self, event_id: int, duration: int) -> None:
        super().__init__(TaskType.EVENT_RESET, f"EventReset(e{event_id})", duration, kind=EFFECT)
        self.event_id = event_id

    def complete(self, ts: TaskScheduler, stream: SchedStream) -> None:
        ts.device.event_flags[self.event_id] = 0
