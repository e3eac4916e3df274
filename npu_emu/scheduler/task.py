"""Tasks: what a stream's SQ holds. One task is one SQE (a fused task is one SQE with sub-tasks).

``type`` is the TS task type id of the real runtime (``ts_task_type_t``), what a user sees in a
profile. ``kind`` says what the scheduler's loop must do with the task, kept as a small int so
the loop tests it without a method call: PLAIN retires with no effect, EFFECT calls
``complete(ts, stream)`` at retirement, the *_WAIT kinds are gated at dispatch.

A task is immutable once enqueued, except ``task_id``, ``stream`` and ``pos`` which the device
assigns when it enqueues it; task-group updates replace tasks rather than editing them.
"""
from __future__ import annotations

from enum import IntEnum
from typing import Any, Callable, Protocol

from npu_emu.scheduler.cost_model import TS_ONLY


class TaskStream(Protocol):
    """A task names its stream in messages only; the stream itself is a floor up."""

    id: int


class DeviceCopy(Protocol):
    def copy(self, dst: int, src: int, count: int) -> None: ...


class Retiring(Protocol):
    """What a task's effect reaches when it retires: the task scheduler's clock and device.
    The TS (task_scheduler.py) satisfies it; tasks name it so that this module, the bottom of
    the scheduler's floor, imports nothing above it. Tasks one floor up (npu_emu/core/) type
    ``ts`` as the TaskScheduler itself."""

    now: int

    @property
    def device(self) -> DeviceCopy: ...


class TaskType(IntEnum):
    """ts_task_type_t, as the runtime numbers it (src/runtime/core/inc/task/task_base.hpp)."""
    KERNEL_AICORE = 0
    KERNEL_AICPU = 1
    EVENT_RECORD = 2
    STREAM_WAIT_EVENT = 3
    FUSION_ISSUE = 4
    MEMCPY = 5
    MODEL_MAINTAINCE = 12     # sic: the runtime's spelling
    MODEL_EXECUTE = 13
    NOTIFY_WAIT = 14
    NOTIFY_RECORD = 15
    STREAM_SWITCH = 18
    STREAM_ACTIVE = 19
    LABEL_SET = 20
    LABEL_SWITCH = 21
    LABEL_GOTO = 22
    EVENT_RESET = 24
    CCU_LAUNCH = 30           # an HCCL collective on the collective communication unit
    KERNEL_AIVEC = 66
    STREAM_SWITCH_N = 71      # rtStreamSwitchN (task_base.hpp's TS_TASK_TYPE_STREAM_SWITCH_N)
    MODEL_END_GRAPH = 67
    HOSTFUNC_CALLBACK = 72
    STREAM_LABEL_SWITCH_BY_INDEX = 75
    STREAM_LABEL_GOTO = 77
    FUSION_KERNEL = 107       # task_base.hpp: TS_TASK_TYPE_FUSION_KERNEL


PLAIN = 0
EFFECT = 1
EVENT_WAIT = 2
NOTIFY_WAIT = 3

MemRange = tuple[int, int]  # (device address, bytes)


class Task:
    __slots__ = ("task_id", "stream", "pos", "type", "kind", "unit", "duration", "name",
                 "reads", "writes")

    def __init__(self, type: TaskType, name: str, duration: int, *, kind: int = PLAIN,
                 unit: int = TS_ONLY, reads: tuple[MemRange, ...] = (),
                 writes: tuple[MemRange, ...] = ()) -> None:
        self.task_id = -1
        self.stream: TaskStream | None = None
        self.pos = -1
        self.type = type
        self.kind = kind
        self.unit = int(unit)   # not a Unit: the scheduler indexes and compares it per SQE
        self.duration = duration
        self.name = name
        self.reads = reads
        self.writes = writes

    def complete(self, ts: Retiring, stream: TaskStream) -> None:
        """The task's effect, at the simulated time it retires."""

    def __str__(self) -> str:
        return f"{self.name}#{self.task_id}"

    __repr__ = __str__

    def where(self) -> str:
        sid = self.stream.label if self.stream is not None else "?"
        return f"{self.name} (task {self.task_id}, SQE {self.pos} of stream {sid})"


class MemcpyTask(Task):
    """An SDMA copy. Host addresses are resolved when the copy runs, as real DMA reads the
    host buffer at execution time: changing it before the stream syncs is the program's bug."""

    __slots__ = ("dst", "src", "count")

    def __init__(self, dst: int, src: int, count: int, duration: int, unit: int,
                 reads: tuple[MemRange, ...], writes: tuple[MemRange, ...]) -> None:
        super().__init__(TaskType.MEMCPY, "MemcpyAsync", duration, kind=EFFECT, unit=unit,
                         reads=reads, writes=writes)
        self.dst, self.src, self.count = dst, src, count

    def complete(self, ts: Retiring, stream: TaskStream) -> None:
        ts.device.copy(self.dst, self.src, self.count)


class CallbackTask(Task):
    """aclrtLaunchCallback: a host function the stream calls in order (on the host thread)."""

    __slots__ = ("fn", "user_data")

    def __init__(self, fn: Callable[[Any], None], user_data: Any, duration: int) -> None:
        super().__init__(TaskType.HOSTFUNC_CALLBACK, "HostCallback", duration, kind=EFFECT)
        self.fn, self.user_data = fn, user_data

    def complete(self, ts: Retiring, stream: TaskStream) -> None:
        self.fn(self.user_data)
