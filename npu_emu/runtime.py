"""The runtime's global object (Runtime::Instance in CANN), one fresh instance per run.

It holds the devices, contexts, the kernel table, host buffers, models, the capture state, the
trace bus everything emits into and the faults found. It hangs off the run's World, and
``npu_emu.world.current_runtime()`` reaches the current world's, so a re-run (reverse step,
replay, a test) never sees the last run's device. Nothing here starts a thread: the device
advances only inside the API calls of whichever thread drives it.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from npu_emu.capture import CaptureManager
from npu_emu.context import Context
from npu_emu.cost_model import CostModel
from npu_emu.device import Device
from npu_emu.errors import ContextError, InvalidDeviceError, InvalidHandleError, InvalidParamError
from npu_emu.event import Event
from npu_emu.kernel_task import KernelTable
from npu_emu.memory import HostMemory
from npu_emu.model import Model
from npu_emu.notify import Notify
from npu_emu.stream import Stream
from npu_emu.trace import TraceBus, TraceEvent


@dataclass(frozen=True)
class RuntimeConfig:
    device_count: int = 1
    memory_bytes: int = 2 << 30          # VGG-19 fits; pages are mapped lazily
    sq_depth: int = 1024                 # a device SQ's fixed depth
    max_events: int = 65536
    max_notifies: int = 8192
    auto_split: bool = True
    host_sq_max_count: int = 32767       # HOST_SQ_MAX_COUNT: AutoSplit's limit per stream
    auto_split_reserve: int = 33         # 32 spare SQEs + the StreamActive to the slave
    race_check: bool = False
    cost: CostModel = field(default_factory=CostModel)


@dataclass(frozen=True, slots=True)
class Fault:
    """A problem found while running: kind is task, deadlock, race, timeout or oom."""

    kind: str
    message: str


@dataclass(frozen=True, slots=True)
class FaultFound(TraceEvent):
    fault: str      # task, deadlock, race, timeout or oom
    message: str


class Runtime:
    def __init__(self, config: RuntimeConfig | None = None, bus: TraceBus | None = None) -> None:
        self.config = config or RuntimeConfig()
        self.bus = bus or TraceBus()
        self.devices: dict[int, Device] = {}
        self.contexts: list[Context] = []
        self.current_context: Context | None = None
        self.kernels = KernelTable()
        self.host = HostMemory()
        self.models: list[Model] = []
        self.capture = CaptureManager(self)
        self.faults: list[Fault] = []
        self.handles: dict[int, Any] = {}
        self._handle_of: dict[int, int] = {}   # id(obj) -> handle (lookup only)
        self._ids: dict[str, int] = {}
        self.race_detector = None
        self.initialized = False   # acl.init / acl.finalize
        if self.config.race_check:
            self.enable_race_check()

    def configure(self, **changes: Any) -> None:
        """Change the config before any device is set (a lesson shrinking HOST_SQ_MAX_COUNT)."""
        if self.devices:
            raise InvalidParamError("configure the runtime before setting a device")
        try:
            self.config = replace(self.config, **changes)
        except TypeError as exc:
            raise InvalidParamError(f"runtime config: {exc}") from exc

    def next_id(self, kind: str) -> int:
        n = self._ids.get(kind, 0)
        self._ids[kind] = n + 1
        return n

    def report_fault(self, kind: str, message: str) -> None:
        self.faults.append(Fault(kind, message))
        self.bus.emit(FaultFound, kind, message)

    def enable_race_check(self) -> None:
        from npu_emu.race_detector import RaceDetector
        if self.race_detector is None:
            self.race_detector = RaceDetector(self)
            self.bus.subscribe(self.race_detector)

    def close(self) -> None:
        """Unsubscribe what this runtime subscribed, so the bus outlives it cleanly."""
        if self.race_detector is not None:
            self.bus.unsubscribe(self.race_detector)
            self.race_detector = None

    # -- devices and contexts ------------------------------------------------------------------
    def set_device(self, device_id: int) -> Device:
        """aclrtSetDevice: make the device (and its primary context) current."""
        if not 0 <= device_id < self.config.device_count:
            raise InvalidDeviceError(f"device {device_id} (this runtime has "
                                     f"{self.config.device_count})")
        device = self.devices.get(device_id)
        if device is None:
            device = self.devices[device_id] = Device(self, device_id)
            self._new_context(device, primary=True)
        self.current_context = next(c for c in self.contexts
                                    if c.device is device and c.primary)
        return device

    def reset_device(self, device_id: int) -> None:
        device = self.device(device_id)
        try:
            device.synchronize()   # a fault found here is reported; the device goes regardless
        finally:
            self.contexts = [c for c in self.contexts if c.device is not device]
            del self.devices[device_id]
            if self.current_context is not None and self.current_context.device is device:
                self.current_context = None

    def create_context(self, device_id: int) -> Context:
        self.set_device(device_id)
        ctx = self._new_context(self.devices[device_id], primary=False)
        self.current_context = ctx
        return ctx

    def _new_context(self, device: Device, primary: bool) -> Context:
        ctx = Context(device, self.next_id("context"), primary)
        self.contexts.append(ctx)
        return ctx

    def destroy_context(self, ctx: Context) -> None:
        if ctx.primary:
            raise ContextError("the primary context is released by reset_device, not destroyed")
        ctx.device.synchronize()
        ctx.destroyed = True
        self.contexts.remove(ctx)
        if self.current_context is ctx:
            self.current_context = None

    def context(self) -> Context:
        if self.current_context is None:
            raise ContextError("no current context: call set_device first")
        return self.current_context

    def device(self, device_id: int | None = None) -> Device:
        if device_id is None:
            return self.context().device
        if device_id not in self.devices:
            raise InvalidDeviceError(f"device {device_id} is not set")
        return self.devices[device_id]

    # -- conveniences on the current context ---------------------------------------------------
    def create_stream(self, priority: int = 0) -> Stream:
        return self.context().create_stream(priority)

    def default_stream(self) -> Stream:
        return self.context().default_stream

    def create_event(self) -> Event:
        return self.device().create_event()

    def create_notify(self) -> Notify:
        return self.device().create_notify()

    def malloc(self, size: int) -> int:
        return self.device().malloc(size)

    def free(self, addr: int) -> None:
        self.device().free(addr)

    def memcpy(self, dst: int, src: int, count: int) -> None:
        self.device().host_copy(dst, src, count)

    def model_build_begin(self, auto_split: bool | None = None) -> Model:
        """aclmdlRIBuildBegin: a new model on the current device, empty and building."""
        model = Model(self.device(), self.next_id("model"),
                      self.config.auto_split if auto_split is None else auto_split)
        self.models.append(model)
        return model

    # -- handles for the pyACL facade: deterministic ints, never id() --------------------------
    def handle(self, obj: Any) -> int:
        known = self._handle_of.get(id(obj))
        if known is not None and self.handles.get(known) is obj:
            return known
        h = 0x5000_0000 + 0x10 * self.next_id("handle")
        self.handles[h] = obj
        self._handle_of[id(obj)] = h
        return h

    def resolve(self, handle: int, kind: type) -> Any:
        obj = self.handles.get(handle)
        if not isinstance(obj, kind):
            raise InvalidHandleError(f"{handle!r} is not a {kind.__name__} handle")
        return obj

    # -- snapshot: the bus and its observers belong to the run, not to the saved state --------
    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["bus"] = None
        state["race_detector"] = None
        state["_handle_of"] = {}
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._handle_of = {id(obj): h for h, obj in self.handles.items()}

    def attach_bus(self, bus: TraceBus) -> None:
        """Emit into ``bus`` from now on: a runtime restored from a snapshot joins the run that
        restored it."""
        self.bus = bus
        for device in self.devices.values():
            device.scheduler.bus = bus

