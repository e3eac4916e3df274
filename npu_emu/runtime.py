"""The runtime's global object (Runtime::Instance in CANN), one fresh instance per run.

It holds the devices, contexts, the kernel table, host buffers, models, the capture state, the
trace bus everything emits into and the faults found. It hangs off the run's World, and
``npu_emu.world.current_runtime()`` reaches the current world's, so a re-run (reverse step,
replay, a test) never sees the last run's device. Nothing here starts a thread: the device
advances only inside the API calls of whichever thread drives it.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from npu_emu.base.errors import (AclError, ContextError, FeatureNotSupportedError,
                                 InvalidDeviceError, InvalidHandleError, InvalidParamError)
from npu_emu.base.stream_name import rt_stream_name
from npu_emu.base.trace import TraceBus, TraceEvent
from npu_emu.core.context import Context
from npu_emu.core.device import Device
from npu_emu.core.event import Event
from npu_emu.core.kernel_task import KernelTable
from npu_emu.core.notify import Notify
from npu_emu.core.stream import Stream
from npu_emu.driver.memory import ALIGNMENT, HostMemory
from npu_emu.driver.soc import (DEFAULT_SOC_VERSION, FEATURE_TYPE_PERSISTENT_STREAM_UNLIMITED_DEPTH,
                                HOST_SQ_MAX_COUNT, SocProfile, soc_profile)
from npu_emu.feature.capture import CaptureManager
from npu_emu.feature.model import Model
from npu_emu.scheduler.cost_model import CostModel


@dataclass(frozen=True)
class RuntimeConfig:
    device_count: int = 1
    memory_bytes: int = 2 << 30          # VGG-19 fits; pages are mapped lazily
    soc_version: str = DEFAULT_SOC_VERSION   # the chip (soc.py): its limits and features
    sq_depth: int | None = None          # a device SQ's fixed depth; None: the chip's rtsqDepth
    max_events: int = 65536
    max_notifies: int = 8192
    host_sq_max_count: int = HOST_SQ_MAX_COUNT   # AutoSplit's limit per stream
    race_check: bool = False
    cost: CostModel = field(default_factory=CostModel)

    def __post_init__(self) -> None:
        """A config is checked whole when made (acl.json fields arrive here as JSON values), so
        a bad one is refused before any device is built from it."""
        soc_profile(self.soc_version)   # a chip that is not modelled is refused here
        for name, (lo, hi) in _INT_FIELDS.items():
            value = getattr(self, name)
            if value is None and name == "sq_depth":
                continue
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise InvalidParamError(f"runtime config {name}={value!r}: an int in "
                                        f"[{lo}, {hi}] is needed")
        if not isinstance(self.race_check, bool):
            raise InvalidParamError(f"runtime config race_check={self.race_check!r}: "
                                    f"true or false is needed")
        if self.memory_bytes % ALIGNMENT:
            raise InvalidParamError(f"runtime config memory_bytes={self.memory_bytes}: a "
                                    f"multiple of {ALIGNMENT} is needed")
        if self.soc.auto_split_full(0, 1, self.host_sq_max_count):
            raise InvalidParamError(f"runtime config host_sq_max_count={self.host_sq_max_count}"
                                    f" leaves no room for an SQE beside AutoSplit's reserve")
        if not isinstance(self.cost, CostModel):
            raise InvalidParamError("runtime config cost: a CostModel is needed")

    @property
    def soc(self) -> SocProfile:
        return soc_profile(self.soc_version)

    @property
    def device_sq_depth(self) -> int:
        return self.soc.rtsq_depth if self.sq_depth is None else self.sq_depth


# The ranges a config's int fields may take: up to 64 devices of at most 1 TiB each (pages are
# mapped lazily), SQs and tables no larger than the runtime's own limits.
_INT_FIELDS = {"device_count": (1, 64), "memory_bytes": (ALIGNMENT, 1 << 40),
               "sq_depth": (1, 1 << 16), "max_events": (1, 1 << 20), "max_notifies": (1, 1 << 20),
               "host_sq_max_count": (2, 1 << 20)}


@dataclass(frozen=True, slots=True)
class Fault:
    """A problem found while running: kind is task, deadlock, race, timeout or oom."""

    kind: str
    message: str


@dataclass(frozen=True, slots=True)
class FaultFound(TraceEvent):
    fault: str      # task, deadlock, race, timeout or oom
    message: str


class ThreadContext(threading.local):
    """The calling thread's current context: the runtime keeps it thread-local
    (InnerThreadLocalContainer::curCtx_, src/runtime/core/inc/common/inner_thread_local.hpp),
    so a thread starts with none and aclrtSetDevice / aclrtSetCurrentContext set it for the
    calling thread only."""

    context: Context | None = None


class Runtime:
    def __init__(self, config: RuntimeConfig | None = None, bus: TraceBus | None = None) -> None:
        self.config = config or RuntimeConfig()
        self.bus = bus or TraceBus()
        self.devices: dict[int, Device] = {}
        self.contexts: list[Context] = []
        self._thread = ThreadContext()
        self.kernels = KernelTable()
        self.host = HostMemory()
        self.models: list[Model] = []
        self.capture = CaptureManager(self)
        self.faults: list[Fault] = []
        self.handles: dict[int, Any] = {}
        self._handle_of: dict[int, int] = {}   # id(obj) -> handle (lookup only)
        self._ids: dict[str, int] = {}
        self.stream_names: dict[int, str] = {}   # rt stream id -> the name GE gave it
        self.race_detector = None
        self.initialized = False   # acl.init / acl.finalize
        self._at_close: list[Callable[[], None]] = []
        if self.config.race_check:
            self.enable_race_check()

    @property
    def current_context(self) -> Context | None:
        """The calling thread's current context (None until it sets a device or a context)."""
        return self._thread.context

    @current_context.setter
    def current_context(self, ctx: Context | None) -> None:
        self._thread.context = ctx

    def configure(self, **changes: Any) -> None:
        """Change the config before any device is set (a lesson shrinking HOST_SQ_MAX_COUNT)."""
        if self.devices:
            raise InvalidParamError("configure the runtime before setting a device")
        try:
            self.config = replace(self.config, **changes)
        except TypeError as exc:   # a field RuntimeConfig does not have
            raise InvalidParamError(f"runtime config: {exc}") from exc

    def set_soc_version(self, soc_version: str) -> None:
        """rtSetSocVersion: the chip this runtime drives (GE calls it with ge.socVersion). Like
        any configuration it must come before a device is set, unless it names the same chip."""
        if soc_version != self.config.soc_version:
            self.configure(soc_version=soc_version)

    def next_id(self, kind: str) -> int:
        n = self._ids.get(kind, 0)
        self._ids[kind] = n + 1
        return n

    def name_stream(self, rt_id: int, name: str) -> None:
        """The layer that binds a stream of its own to this one names the pair (the hook of
        npu_emu/base/stream_name.py)."""
        self.stream_names[rt_id] = name

    def stream_name(self, rt_id: int) -> str:
        return self.stream_names.get(rt_id) or rt_stream_name(rt_id)

    def report_fault(self, kind: str, message: str) -> None:
        self.faults.append(Fault(kind, message))
        self.bus.emit(FaultFound, kind, message)

    def enable_race_check(self) -> None:
        from npu_emu.checkers.race_detector import RaceDetector
        if self.race_detector is None:
            self.race_detector = RaceDetector(self)
            self.bus.subscribe(self.race_detector)

    def at_close(self, fn: Callable[[], None]) -> None:
        """Call ``fn`` when the runtime closes: a thread a layer above keeps on it (GE's model
        Run loop) ends then, where it would wait for a turn no caller will give it."""
        self._at_close.append(fn)

    def close(self) -> None:
        """The program using this runtime is over (ended, or abandoned by a debugger): the
        threads kept on it end, and what it subscribed is unsubscribed, so the bus outlives it
        cleanly."""
        closing, self._at_close = self._at_close, []
        for fn in closing:
            fn()
        if self.race_detector is not None:
            self.bus.unsubscribe(self.race_detector)
            self.race_detector = None

    def release_memory(self) -> None:
        """Nothing reads this runtime again (its world was discarded, or a snapshot was restored
        in its place): its devices let go of their memory now, not at the collection the
        runtime's cycles wait for (a device's is a 2 GiB reservation)."""
        for device in self.devices.values():
            device.memory.release()   # the device is in the runtime's cycles: not it

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
        if device.scheduler.advancing:
            raise FeatureNotSupportedError(f"reset device {device_id} from a host callback "
                                           f"running on it")
        try:   # a fault found here is reported; the device goes regardless
            device.synchronize(f"reset device {device_id}")
        finally:
            for ctx in self.contexts:
                if ctx.device is device:
                    ctx.release()
            self.contexts = [c for c in self.contexts if c.device is not device]
            del self.devices[device_id]
            device.memory.release()   # aclrtResetDevice frees what the device held
            if self.current_context is not None and self.current_context.device is device:
                self.current_context = None

    def finish(self) -> None:
        """The host program ended (gewb devrun, the debugger's host program). A device does not
        stop with its host: what is queued runs, and a stream that can never finish (a wait
        nobody satisfies, with no synchronize left to notice) is reported as a deadlock fault
        naming what it waits on, as acl.finalize's reset would report it."""
        for device_id in sorted(self.devices):
            try:
                self.devices[device_id].synchronize("the program ended, and its streams")
            except AclError:
                pass   # deadlocks and task faults were reported as faults where found

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
        ctx.release()
        self.contexts.remove(ctx)
        if self.current_context is ctx:
            self.current_context = None

    def context(self) -> Context:
        ctx = self.current_context
        if ctx is None:
            raise ContextError("no current context in this thread: call set_device or "
                               "set_context first (a context is current per thread)")
        if ctx.destroyed:
            raise ContextError(f"the current context ({ctx.id}) was destroyed")
        return ctx

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
        """aclmdlRIBuildBegin: a new model on the current device, empty and building; its
        streams grow by AutoSplit where the chip supports it (``auto_split`` overrides that, for
        tests that compare the two on one chip)."""
        model = Model(self.device(), self.next_id("model"),
                      self.config.soc.persistent_stream_unlimited_depth
                      if auto_split is None else auto_split)
        self.models.append(model)
        return model

    # -- what the chip can do: GE asks these (soc.py) -------------------------------------------
    def get_max_stream_and_task(self) -> tuple[int, int]:
        """rtGetMaxStreamAndTask: streams a device may have, tasks one stream may hold."""
        soc = self.config.soc
        return soc.max_alloc_stream_num, soc.max_task_num_per_stream

    def get_rt_capability(self, feature: int) -> bool:
        """rtGetRtCapability for FEATURE_TYPE_PERSISTENT_STREAM_UNLIMITED_DEPTH: the chip must
        support it and a context must be current (api_impl.cc's HandlePersistentStreamFeature),
        so an offline build with no device set is told no."""
        if feature != FEATURE_TYPE_PERSISTENT_STREAM_UNLIMITED_DEPTH:
            raise InvalidParamError(f"rtGetRtCapability: feature type {feature} is not modelled")
        return (self.config.soc.persistent_stream_unlimited_depth
                and self.current_context is not None)

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
        """The live object behind ``handle``: one destroyed, or made on a device since reset,
        is an invalid handle, as the runtime's handle validation answers."""
        obj = self.handles.get(handle)
        if not isinstance(obj, kind):
            noun = kind.__name__
            raise InvalidHandleError(f"{handle!r} is not {'an' if noun[0] in 'AEIOU' else 'a'} "
                                     f"{noun} handle")
        if getattr(obj, "destroyed", False):
            raise InvalidHandleError(f"{handle:#x}: the {kind.__name__} was destroyed")
        device = getattr(obj, "device", None)
        if device is not None and self.devices.get(device.id) is not device:
            raise InvalidHandleError(f"{handle:#x}: the {kind.__name__}'s device "
                                     f"{device.id} was reset")
        return obj

    def release(self, handle: int, kind: type) -> Any:
        """A destroy call: the live object behind ``handle``, whose handle is now dead."""
        obj = self.resolve(handle, kind)
        del self.handles[handle]
        return obj

    # -- a snapshot restored (npu_emu/snapshot/snapshot.py): the bus and its observers belong to
    # the run
    def attach_bus(self, bus: TraceBus) -> None:
        """Emit into ``bus`` from now on: a runtime restored from a snapshot joins the run that
        restored it (with its handle index and race detector made afresh)."""
        self.bus = bus
        for device in self.devices.values():
            device.scheduler.bus = bus
        self._handle_of = {id(obj): h for h, obj in self.handles.items()}
        if self.config.race_check:
            self.enable_race_check()

