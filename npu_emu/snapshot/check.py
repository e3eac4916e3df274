"""What must agree in a loaded snapshot before the runtime may run it.

The codec has checked every field's kind; here the values are checked against each other where
the runtime would otherwise index, slice or look up with them (a block past the device's
capacity, a ready-heap entry naming a stream slot that does not exist, an event id past the
event table, a wait task that is not a wait), so a hand-edited snapshot is one SnapshotError at
restore, not an IndexError in the task scheduler later.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from npu_emu.core.event import Event, EventWaitTask
from npu_emu.core.notify import Notify, NotifyWaitTask
from npu_emu.driver.memory import (ALIGNMENT, DEVICE_BASE, HOST_BASE, OutOfMemoryError, reserve,
                                   size_class)
from npu_emu.feature.fusion_launch import FusionTask
from npu_emu.scheduler.cost_model import GANG, TS_ONLY, Unit
from npu_emu.scheduler.task import EFFECT, EVENT_WAIT, NOTIFY_WAIT, PLAIN, Task
from npu_emu.scheduler.task_scheduler import SLOT
from npu_emu.snapshot.codec import SnapshotError

if TYPE_CHECKING:
    from npu_emu.core.device import Device
    from npu_emu.driver.memory import DeviceMemory, HostMemory
    from npu_emu.runtime import Runtime


def _require(ok: bool, what: str) -> None:
    if not ok:
        raise SnapshotError(what)


def load_device_memory(memory: DeviceMemory) -> None:
    """The block table must tile the capacity without overlap; the saved bytes (``_buf`` holds
    (addr, bytes) per block as loaded) go back into a fresh buffer. A capacity of 0 is a memory
    let go of (its device was reset), which a destroyed stream's handle still reaches."""
    cap = memory.capacity
    _require(0 <= cap <= 1 << 40 and cap % ALIGNMENT == 0, f"capacity {cap}")
    _require(memory._starts == sorted(memory._live) and set(memory._live) == set(memory._class_of),
             "the live-block tables disagree")
    _require(sorted(a for addrs in memory._pool.values() for a in addrs) == sorted(memory._cached)
             and all(memory._cached[a] == cls for cls, addrs in memory._pool.items()
                     for a in addrs), "the pool and the cached blocks disagree")
    blocks = {a: memory._class_of[a] for a in memory._live} | memory._cached
    spans = sorted([(a - DEVICE_BASE, n) for a, n in blocks.items()] + memory._extents)
    end = 0
    for offset, n in spans:
        _require(offset >= end and n > 0 and offset % ALIGNMENT == 0,
                 f"block or extent at offset {offset} overlaps or is misaligned")
        end = offset + n
    _require(end <= cap, f"blocks reach past the capacity {cap}")
    _require(all(0 < memory._live[a] <= memory._class_of[a] == size_class(memory._live[a])
                 for a in memory._live), "a live block's size does not fit its size class")
    contents = memory._buf
    _require(sorted(a for a, _ in contents) == sorted(blocks) and
             all(data.dtype.itemsize == 1 and data.size == blocks[a] for a, data in contents),
             "the saved bytes do not match the blocks")
    try:
        buf = reserve(cap, f"device {memory.device_id}'s memory")
    except OutOfMemoryError as exc:
        raise SnapshotError(str(exc)) from None
    for addr, data in contents:
        buf[addr - DEVICE_BASE:addr - DEVICE_BASE + data.size] = data.view("uint8").reshape(-1)
    _require(set(memory._constant) <= set(memory._live), "a constant block is not live")
    memory._constant = set(memory._constant)
    memory.use_buffer(buf)


def check_host_memory(host: HostMemory) -> None:
    _require(host._starts == sorted(host._arrays), "the host buffer tables disagree")
    end = 0
    for addr in host._starts:
        flat = host._arrays[addr]
        _require(addr >= max(end, HOST_BASE) and flat.dtype == "uint8" and flat.ndim == 1,
                 f"host buffer {addr:#x} overlaps another or is not bytes")
        end = addr + flat.size
    _require(host._next >= end, "the next host address is inside a buffer")


def check_runtime(rt: Runtime) -> None:
    _require(all(d.id == i and d.runtime is rt for i, d in rt.devices.items()),
             "the device table disagrees with its devices")
    _require(rt.current_context is None or rt.current_context in rt.contexts,
             "the current context is not one of the runtime's")
    for device in rt.devices.values():
        _check_device(device)
    for obj in rt.handles.values():   # an event or notify a later call records or waits on
        for cls, table in ((Event, "event_flags"), (Notify, "notify_flags")):
            if isinstance(obj, cls):
                _require(0 <= obj.id < len(getattr(obj.device, table)),
                         f"{cls.__name__.lower()} {obj.id} is past its device's table")


def _check_device(device: Device) -> None:
    ts = device.scheduler
    _require(ts.device is device and device.memory.device_id == device.id,
             f"device {device.id}'s parts belong elsewhere")
    units = len(Unit)
    _require(len(ts._free) == units and len(ts._unit_waiters) == units and
             all(f >= 0 for f in ts._free), "the unit tables do not list every unit")
    n = len(ts.streams)
    _require(n <= SLOT + 1, "too many streams")
    keys = ts._ready + ts._inflight + [k for heap in ts._unit_waiters for k in heap]
    _require(all(k >= 0 and k & SLOT < n for k in keys), "a scheduler heap names no stream")
    for flags, waiters in ((device.event_flags, ts._event_waiters),
                           (device.notify_flags, ts._notify_waiters)):
        _require(all(0 <= i < len(flags) for i in waiters), "a waiter list names no flag")
    for i, s in enumerate(ts.streams):
        _require(s.index == i and s.device is device, f"stream {s.id} is not in its slot")
        _require(0 <= s.sq.head <= len(s.sq.entries) and s.sq.depth > 0,
                 f"stream {s.id}'s SQ head is outside its SQ")
        for task in s.sq.entries + (s.host_buffer or []):
            _check_task(task, device)


def _check_task(task: Task, device: Device) -> None:
    where = f"task {task.task_id}"
    _require(task.kind in (PLAIN, EFFECT, EVENT_WAIT, NOTIFY_WAIT), f"{where}: kind {task.kind}")
    _require((task.kind == EVENT_WAIT) == isinstance(task, EventWaitTask) and
             (task.kind == NOTIFY_WAIT) == isinstance(task, NotifyWaitTask),
             f"{where}: its kind is not its class's")
    _require(TS_ONLY <= task.unit < len(Unit) or (task.unit == GANG and
                                                  isinstance(task, FusionTask)),
             f"{where}: unit {task.unit}")
    _require(task.duration >= 0, f"{where}: negative duration")
    for attr, flags in (("event_id", device.event_flags), ("notify_id", device.notify_flags)):
        ident = getattr(task, attr, None)
        _require(ident is None or 0 <= ident < len(flags), f"{where}: {attr} {ident}")
    if isinstance(task, FusionTask):
        _require(all(0 <= u < len(Unit) for u in task.units), f"{where}: a sub-task's unit")
        for sub in task.subtasks:
            _check_task(sub, device)
