"""A device: its memory, its task scheduler and units, its event and notify tables, its streams.

``submit`` is where every launched task goes (Engine.SubmitTask): to a capture model when the
stream is capturing, to the model under construction when the stream is bound to one, else onto
the stream's SQ, where a full SQ blocks the host until the device frees a slot, as on hardware.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from npu_emu.base.errors import (ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, NORMAL_FINISH_CODES,
                                 InvalidHandleError, InvalidParamError, OutOfMemoryError)
from npu_emu.checkers.deadlock import deadlock_error
from npu_emu.core.event import Event
from npu_emu.core.notify import Notify
from npu_emu.core.stream import Stream
from npu_emu.driver import host_malloc
from npu_emu.driver.events import HostMemAccess, MemAlloc, MemFree
from npu_emu.driver.memory import DeviceMemory
from npu_emu.scheduler.cost_model import CostModel
from npu_emu.scheduler.events import HostSynchronized, SqeSubmitted, StreamState
from npu_emu.scheduler.task import Task
from npu_emu.scheduler.task_scheduler import TaskScheduler

if TYPE_CHECKING:
    from npu_emu.base.errors import DeadlockError
    from npu_emu.core.context import Context
    from npu_emu.core.links import RuntimeLink


class Device:
    def __init__(self, runtime: RuntimeLink, device_id: int) -> None:
        host_malloc.tune()  # kernels allocate their outputs on the host
        cfg = runtime.config
        self.runtime = runtime
        self.id = device_id
        self.cost: CostModel = cfg.cost
        self.memory = DeviceMemory(device_id, cfg.memory_bytes)
        self.event_flags = bytearray(cfg.max_events)
        self.event_times: dict[int, int] = {}
        self.notify_flags = bytearray(cfg.max_notifies)
        self.notify_counts: dict[int, int] = {}
        self.scheduler = TaskScheduler(self)
        self._next_task_id = 0
        self._control: Stream | None = None

    @property
    def now(self) -> int:
        return self.scheduler.now

    def deadlock_error(self, waiter: str) -> DeadlockError:
        """The scheduler's host waits found no stream able to progress: the report with its
        wait-for chain (npu_emu/checkers/deadlock.py, a floor below the device)."""
        return deadlock_error(self.scheduler, waiter)

    @property
    def host_now(self) -> int:
        """The host's clock, kept only by host-scheduled launches (``host_issue``)."""
        return self.scheduler.host_now

    def host_issue(self) -> int:
        """A host-scheduled executor (GE's v2 and hybrid, single op) issues one task: the host
        spends the cost model's ``host_launch_ns`` while the device runs on
        (``TaskScheduler.host_issue``). Returns the host's clock."""
        return self.scheduler.host_issue(self.cost.host_launch_ns)

    # -- resources -----------------------------------------------------------------------------
    def new_stream(self, context: Context | None, priority: int = 0,
                   persistent: bool = False) -> Stream:
        rt = self.runtime
        if not 0 <= priority <= 7:
            raise InvalidParamError(f"stream priority {priority} (0 highest .. 7)")
        stream = Stream(self, context, rt.next_id("stream"), len(self.scheduler.streams),
                        priority, rt.config.device_sq_depth, persistent)
        self.scheduler.add_stream(stream)
        return stream

    def control_stream(self) -> Stream:
        """The runtime's internal stream for maintenance tasks (bindings and the like)."""
        if self._control is None:
            self._control = self.new_stream(None)
        return self._control

    def create_event(self) -> Event:
        event_id = self.runtime.next_id("event")
        if event_id >= len(self.event_flags):
            raise InvalidParamError(f"no event resource left ({len(self.event_flags)})", 207007)
        return Event(self, event_id)

    def create_notify(self, purpose: str = "") -> Notify:
        notify_id = self.runtime.next_id("notify")
        if notify_id >= len(self.notify_flags):
            raise InvalidParamError(f"no notify resource left ({len(self.notify_flags)})",
                                    207009)
        return Notify(self, notify_id, purpose)

    def malloc(self, size: int) -> int:
        try:
            addr = self.memory.malloc(size)
        except OutOfMemoryError as exc:   # a fault like the others, so `break fault` sees it
            self.runtime.report_fault("oom", str(exc))
            raise
        self.runtime.bus.emit(MemAlloc, self.id, addr, size)
        return addr

    def free(self, addr: int) -> None:
        size = self.memory.free(addr)
        self.runtime.bus.emit(MemFree, self.id, addr, size)

    # -- tasks ---------------------------------------------------------------------------------
    def submit(self, stream: Stream, task: Task) -> Task:
        if stream.destroyed:
            raise InvalidHandleError(f"stream {stream.label} was destroyed")
        if self.runtime.capture.route(stream, task):
            return task
        if stream.model is not None:
            stream.model.add_task(stream, task)
            return task
        sq = stream.sq
        if sq.pending >= sq.depth:
            self.scheduler.wait_for_slot(stream)
        if sq.head > 4096 and stream.state != StreamState.RUNNING:
            sq.compact()
        self.enqueue(stream, task)
        if stream.state == StreamState.IDLE:
            self.scheduler.make_ready(stream)
        return task

    def enqueue(self, stream: Stream, task: Task) -> None:
        """Give ``task`` its id and SQ position and append it to ``stream``'s SQ."""
        self.place(stream, task, stream.sq.entries)
        self.runtime.bus.emit(SqeSubmitted, task)

    def place(self, stream: Stream, task: Task, queue: list[Task]) -> None:
        """Give ``task`` its id and position in ``queue`` (an SQ or a host SQE buffer)."""
        task.task_id = self._next_task_id
        self._next_task_id += 1
        task.stream = stream
        task.pos = stream.sq.base + len(queue)
        queue.append(task)

    def copy(self, dst: int, src: int, count: int) -> None:
        """The bytes of a memcpy, in whichever direction the addresses say."""
        self._bytes(dst, count)[...] = self._bytes(src, count)
        if not self.runtime.host.is_host(dst):
            self.memory.wrote(dst)

    def _bytes(self, addr: int, count: int) -> np.ndarray:
        host = self.runtime.host
        if host.is_host(addr):
            return host.bytes_view(addr, count)
        return self.memory.view(addr, (count,), np.uint8)

    def host_copy(self, dst: int, src: int, count: int) -> None:
        """aclrtMemcpy: the host copies now, ordered with no stream."""
        bus = self.runtime.bus
        for addr, write in ((src, False), (dst, True)):
            if not self.runtime.host.is_host(addr):
                bus.emit(HostMemAccess, addr, count, write)
        self.copy(dst, src, count)

    def host_memset(self, addr: int, value: int, count: int) -> None:
        self.runtime.bus.emit(HostMemAccess, addr, count, True)
        self.memory.memset(addr, value, count)

    # -- host waits ----------------------------------------------------------------------------
    def synchronize_stream(self, stream: Stream, timeout_ms: int = -1) -> int:
        rt = self.runtime
        rt.capture.check_not_captured(stream)
        ts = self.scheduler
        deadline = None if timeout_ms < 0 else ts.now + timeout_ms * 1_000_000
        if not ts.drain(stream, deadline):
            aborted = [m for m in rt.models if m.exec_stream is stream and m.running]
            for model in aborted:
                model.abort()
            rt.report_fault("timeout", f"synchronize stream {stream.label} timed out after "
                            f"{timeout_ms} ms of device time"
                            + "".join(f"; aborted model {m.id}" for m in aborted))
            return ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
        return self._reclaim(stream)

    def synchronize(self, waiter: str = "synchronize the device") -> int:
        """aclrtSynchronizeDevice: drive until nothing is in flight; report the first fault.
        ``waiter`` names who waits in a deadlock report (a reset, the program's end)."""
        self.runtime.capture.check_not_capturing_any("synchronize the device")
        self.scheduler.run(waiter)
        status = 0
        for stream in self.scheduler.streams:
            if stream.error is not None or stream.cq.unreclaimed:
                status = status or self._reclaim(stream)
        return status

    def _reclaim(self, stream: Stream) -> int:
        self.runtime.bus.emit(HostSynchronized, stream.id, self.scheduler.now)
        stream.cq.reclaim()
        err, stream.error = stream.error, None
        if err is None:
            return 0
        if err.code in NORMAL_FINISH_CODES:
            return err.code
        raise err
