"""Notifies: one-shot hardware signals. A record sets the notify; a wait blocks until it is set
and clears it. The model's EndGraph task records the model's end-of-graph notify, which the
executing stream (or the host, for a synchronous execute) waits on. ``value`` counts records."""
from __future__ import annotations

from typing import TYPE_CHECKING

from npu_emu.scheduler.task import EFFECT, NOTIFY_WAIT, Task, TaskType

if TYPE_CHECKING:
    from npu_emu.core.links import DeviceLink
    from npu_emu.scheduler.protocols import SchedStream
    from npu_emu.scheduler.task_scheduler import TaskScheduler


class Notify:
    def __init__(self, device: DeviceLink, notify_id: int, purpose: str = "") -> None:
        self.device = device
        self.id = notify_id
        self.purpose = purpose

    @property
    def signalled(self) -> bool:
        return bool(self.device.notify_flags[self.id])

    @property
    def value(self) -> int:
        return self.device.notify_counts.get(self.id, 0)

    def reset(self) -> None:
        """rtNotifyReset: clear the notify now, from the host (no task, no stream)."""
        self.device.notify_flags[self.id] = 0

    def __repr__(self) -> str:
        return f"Notify({self.id}{', ' + self.purpose if self.purpose else ''})"


class NotifyRecordTask(Task):
    __slots__ = ("notify_id",)

    def __init__(self, notify_id: int, duration: int, name: str = "",
                 type: TaskType = TaskType.NOTIFY_RECORD) -> None:
        super().__init__(type, name or f"NotifyRecord(n{notify_id})", duration, kind=EFFECT)
        self.notify_id = notify_id

    def complete(self, ts: TaskScheduler, stream: SchedStream) -> None:
        ts.record_notify(self.notify_id, stream)


class NotifyWaitTask(Task):
    __slots__ = ("notify_id",)

    def __init__(self, notify_id: int, duration: int, name: str = "") -> None:
        super().__init__(TaskType.NOTIFY_WAIT, name or f"NotifyWait(n{notify_id})", duration,
                         kind=NOTIFY_WAIT)
        self.notify_id = notify_id
