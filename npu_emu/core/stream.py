"""Streams: in-order task queues. Each has an SQ of fixed depth the TS reads SQEs from, and a CQ
the TS reports completions to, which the host's synchronize reclaims (npu_emu/scheduler/sq_cq.py).

An ordinary stream consumes its SQ: a retired SQE is gone. A stream bound to a model keeps its
SQEs (the model runs many times): it is *inactive* until a ModelExecute activates it (head
streams) or a StreamActive / StreamSwitch / label jump does, runs from the activation point to
the end of its SQ, then goes inactive again.

The methods below are the object API's task launches (aclrtLaunchKernel, aclrtMemcpyAsync,
aclrtRecordEvent, ...). Each builds a task and hands it to ``device.submit``, which decides where
the SQE goes: the SQ, an AutoSplit host buffer, or a capture model.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from npu_emu.base.errors import InvalidHandleError, InvalidParamError, StreamModelError
from npu_emu.base.stream_name import rt_stream_name
from npu_emu.core.event import Event, EventRecordTask, EventResetTask, EventWaitTask
from npu_emu.core.kernel_task import KernelTask, TensorArg, make_kernel_task
from npu_emu.core.label import Label, LabelGotoTask, LabelSetTask, LabelSwitchByIndexTask
from npu_emu.core.notify import Notify, NotifyRecordTask, NotifyWaitTask
from npu_emu.scheduler.cost_model import Unit
from npu_emu.scheduler.events import StreamState
from npu_emu.scheduler.sq_cq import CompletionQueue, SubmissionQueue
from npu_emu.scheduler.task import EFFECT, CallbackTask, MemcpyTask, Task, TaskType

if TYPE_CHECKING:
    from npu_emu.core.links import ContextLink, DeviceLink, ModelLink
    from npu_emu.scheduler.task_scheduler import TaskScheduler


# aclmdlRIBindStream flags (hicann/runtime include/external/acl/, the aclmdlRI API)
ACL_MODEL_STREAM_FLAG_HEAD = 0x0
ACL_MODEL_STREAM_FLAG_DEFAULT = 0x7FFFFFFF

# rtCondition_t, for StreamSwitch
CONDITIONS: dict[int, Callable[[Any, Any], bool]] = {
    0: lambda a, b: a == b, 1: lambda a, b: a != b, 2: lambda a, b: a > b,
    3: lambda a, b: a >= b, 4: lambda a, b: a < b, 5: lambda a, b: a <= b}


class Stream:
    def __init__(self, device: DeviceLink, context: ContextLink | None, stream_id: int, index: int,
                 priority: int, depth: int, persistent: bool = False) -> None:
        self.device = device
        self.context = context
        self.id = stream_id
        self.index = index            # the scheduler's slot
        self.priority = priority
        self.key = (priority << 16) | index   # ready-heap order: priority, then creation
        self.sq = SubmissionQueue(depth)
        self.cq = CompletionQueue()
        self.state = StreamState.IDLE
        self.waiting: Task | None = None
        self.persistent = persistent
        self.model: ModelLink | None = None
        self.flag = ACL_MODEL_STREAM_FLAG_DEFAULT
        self.host_buffer: list[Task] | None = None   # AutoSplit: SQEs kept on the host
        self.slave: Stream | None = None
        self.error: Exception | None = None
        self.destroyed = False

    # -- introspection -------------------------------------------------------------------------
    @property
    def pending(self) -> int:
        return self.sq.pending

    @property
    def label(self) -> str:
        """Its one name in messages: ``s0/rt1`` once GE bound a logical stream to it, else
        ``rt1`` (npu_emu/base/stream_name.py)."""
        return self.device.runtime.stream_name(self.id)

    def queued(self) -> list[Task]:
        """The SQEs still to run: all of a model stream's (every execution runs them again),
        an ordinary stream's from the SQ's head on."""
        sq = self.sq
        return sq.entries if self.persistent else sq.entries[sq.head:]

    def __repr__(self) -> str:
        return f"Stream({self.id}, {self.state.name.lower()}, {self.pending} pending)"

    # -- launches ------------------------------------------------------------------------------
    def _submit(self, task: Task) -> Task:
        return self.device.submit(self, task)

    def launch_kernel(self, op_type: str, inputs: Sequence[TensorArg | None],
                      outputs: Sequence[TensorArg], attrs: dict[str, Any] | None = None, *,
                      opset: int = 10_000, unit: Unit | None = None,
                      duration_ns: int | None = None) -> Task:
        """Launch ``op_type`` on the tensors of the args table; ``duration_ns`` overrides the
        cost model."""
        return self._submit(make_kernel_task(self.device, op_type, tuple(inputs),
                                             tuple(outputs), attrs, opset=opset, unit=unit,
                                             duration_ns=duration_ns))

    def launch_timed(self, name: str, duration_ns: int, unit: Unit = Unit.AI_CORE) -> Task:
        """A kernel that only occupies its unit for ``duration_ns`` (synthetic workloads)."""
        return self._submit(KernelTask(name, 0, None, {}, (), (), Unit(unit), duration_ns))

    def memcpy_async(self, dst: int, src: int, count: int) -> Task:
        dev = self.device
        host_side = dev.runtime.host.is_host(dst) or dev.runtime.host.is_host(src)
        reads = () if dev.runtime.host.is_host(src) else ((src, count),)
        writes = () if dev.runtime.host.is_host(dst) else ((dst, count),)
        return self._submit(MemcpyTask(dst, src, count, dev.cost.memcpy_ns(count, host_side),
                                       Unit.SDMA, reads, writes))

    def record_event(self, event: Event) -> Task:
        return self._submit(EventRecordTask(_live(event).id, self.device.cost.launch_ns))

    def wait_event(self, event: Event) -> Task:
        return self._submit(EventWaitTask(_live(event).id, self.device.cost.launch_ns,
                                          reset=self.persistent))

    def reset_event(self, event: Event) -> Task:
        return self._submit(EventResetTask(_live(event).id, self.device.cost.launch_ns))

    def record_notify(self, notify: Notify) -> Task:
        return self._submit(NotifyRecordTask(notify.id, self.device.cost.launch_ns))

    def wait_notify(self, notify: Notify) -> Task:
        return self._submit(NotifyWaitTask(notify.id, self.device.cost.launch_ns))

    def launch_callback(self, fn: Callable[[Any], None], user_data: Any = None) -> Task:
        return self._submit(CallbackTask(fn, user_data, self.device.cost.launch_ns))

    # -- model control flow (only on streams bound to a model) ---------------------------------
    def label_set(self, label: Label) -> Task:
        self._check_model_stream("LabelSet", label)
        return self._submit(LabelSetTask(label, self.device.cost.launch_ns))

    def label_goto(self, label: Label) -> Task:
        self._check_model_stream("LabelGoto", label)
        return self._submit(LabelGotoTask(label, self.device.cost.launch_ns))

    def label_switch_by_index(self, index_addr: int, labels: Sequence[Label]) -> Task:
        for label in labels:
            self._check_model_stream("LabelSwitchByIndex", label)
        if not labels:
            raise InvalidParamError("LabelSwitchByIndex needs at least one label")
        return self._submit(LabelSwitchByIndexTask(index_addr, tuple(labels),
                                                   self.device.cost.launch_ns))

    def active_stream(self, target: Stream) -> Task:
        self._check_model_stream("StreamActive")
        return self._submit(StreamActiveTask(target, self.device.cost.launch_ns))

    def stream_switch(self, value_addr: int, condition: int, value: Any, target: Stream,
                      dtype: Any = np.int64) -> Task:
        self._check_model_stream("StreamSwitch")
        if condition not in CONDITIONS:
            raise InvalidParamError(f"StreamSwitch condition {condition} (0..5)")
        return self._submit(StreamSwitchTask(value_addr, condition, value, target,
                                             np.dtype(dtype).name, self.device.cost.launch_ns))

    def stream_switch_n(self, value_addr: int, size: int, values: Sequence[int],
                        targets: Sequence[Stream], dtype: Any = np.int64) -> Task:
        """rtStreamSwitchN: read ``size`` values at ``value_addr``; activate ``targets[i]`` when
        they equal ``values[i * size:(i + 1) * size]``."""
        self._check_model_stream("StreamSwitchN")
        if not targets or size < 1 or len(values) != size * len(targets):
            raise InvalidParamError(f"StreamSwitchN: {len(values)} target values for "
                                    f"{len(targets)} streams of {size} values each")
        return self._submit(StreamSwitchNTask(value_addr, size, tuple(values), tuple(targets),
                                              np.dtype(dtype).name,
                                              self.device.cost.launch_ns))

    def _check_model_stream(self, what: str, label: Label | None = None) -> None:
        model = self.model or self.device.runtime.capture.model_of(self)
        if model is None:
            raise StreamModelError(f"{what} on stream {self.label}, which is not bound to a model")
        if label is not None and label.model is not model:
            raise StreamModelError(f"{what}: label {label.id} belongs to model "
                                   f"{label.model.id}, stream {self.label} to model {model.id}")

    # -- host waits ----------------------------------------------------------------------------
    def synchronize(self, timeout_ms: int = -1) -> int:
        """Drive the device until this stream has drained. Returns 0, or a normal-finish
        status (model abort 507023); raises a task's fault, DeadlockError, or on timeout
        returns 507046 after aborting any model this stream executes."""
        return self.device.synchronize_stream(self, timeout_ms)

    def query(self) -> bool:
        """aclrtStreamQuery: True when every submitted task has completed."""
        self.device.runtime.capture.check_not_capturing_any("query a stream")
        return self.pending == 0 and self.state != StreamState.RUNNING


def _live(event: Event) -> Event:
    if event.destroyed:
        raise InvalidHandleError(f"event {event.id} was destroyed")
    return event


class StreamActiveTask(Task):
    __slots__ = ("target",)

    def __init__(self, target: Stream, duration: int) -> None:
        super().__init__(TaskType.STREAM_ACTIVE, f"StreamActive({rt_stream_name(target.id)})",
                         duration, kind=EFFECT)
        self.target = target

    def complete(self, ts: TaskScheduler, stream: Stream) -> None:
        ts.activate(self.target, 0, stream)


class StreamSwitchTask(Task):
    """Activate ``target`` when (value at value_addr) <condition> value."""

    __slots__ = ("value_addr", "condition", "value", "target", "dtype")

    def __init__(self, value_addr: int, condition: int, value: Any, target: Stream, dtype: str,
                 duration: int) -> None:
        super().__init__(TaskType.STREAM_SWITCH, f"StreamSwitch({rt_stream_name(target.id)})",
                         duration, kind=EFFECT, reads=((value_addr, np.dtype(dtype).itemsize),))
        self.value_addr, self.condition, self.value = value_addr, condition, value
        self.target, self.dtype = target, dtype

    def complete(self, ts: TaskScheduler, stream: Stream) -> None:
        current = ts.device.memory.view(self.value_addr, (1,), self.dtype)[0]
        if CONDITIONS[self.condition](current, self.value):
            ts.activate(self.target, 0, stream)


class StreamSwitchExTask(StreamSwitchTask):
    """rtStreamSwitchEx: StreamSwitch compares with a constant; the Ex form reads both sides
    from device memory (GE's StreamSwitch task)."""

    __slots__ = ("value_ptr",)

    def __init__(self, value_addr: int, condition: int, value_ptr: int, target: Stream,
                 dtype: str, duration: int) -> None:
        super().__init__(value_addr, condition, None, target, dtype, duration)
        self.value_ptr = value_ptr
        self.reads = self.reads + ((value_ptr, np.dtype(dtype).itemsize),)

    def complete(self, ts: TaskScheduler, stream: Stream) -> None:
        mem = ts.device.memory
        left: Any = mem.view(self.value_addr, (1,), self.dtype)[0]
        right: Any = mem.view(self.value_ptr, (1,), self.dtype)[0]
        if CONDITIONS[self.condition](left, right):
            ts.activate(self.target, 0, stream)


class StreamSwitchNTask(Task):
    """The extensible stream switch (rtStreamSwitchN, GE's multi-batch gear switch): the values
    at ``value_addr`` pick which of ``targets`` runs; none matching starts nothing."""

    __slots__ = ("value_addr", "size", "values", "targets", "dtype")

    def __init__(self, value_addr: int, size: int, values: tuple[int, ...],
                 targets: tuple[Stream, ...], dtype: str, duration: int) -> None:
        names = ",".join(rt_stream_name(t.id) for t in targets)
        super().__init__(TaskType.STREAM_SWITCH_N, f"StreamSwitchN({names})", duration,
                         kind=EFFECT, reads=((value_addr, size * np.dtype(dtype).itemsize),))
        self.value_addr, self.size, self.values = value_addr, size, values
        self.targets, self.dtype = targets, dtype

    def complete(self, ts: TaskScheduler, stream: Stream) -> None:
        current = tuple(ts.device.memory.view(self.value_addr, (self.size,), self.dtype).tolist())
        for i, target in enumerate(self.targets):
            if self.values[i * self.size:(i + 1) * self.size] == current:
                ts.activate(target, 0, stream)
                return
