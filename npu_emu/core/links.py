"""What the core objects need from the floors above them, and from the device that owns them, as
narrow protocols: a stream bound to a model (aclmdlRI, npu_emu/feature/model.py) hands it its
tasks, a device routes a captured stream's tasks to the capture (npu_emu/feature/capture.py), and
every object reaches the process-wide Runtime (npu_emu/runtime.py) for the trace bus, ids and
faults. Naming these protocols instead of the classes keeps every import pointing down
(tests/test_layers.py)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from npu_emu.base.trace import TraceBus
    from npu_emu.driver.memory import DeviceMemory, HostMemory
    from npu_emu.scheduler.cost_model import CostModel
    from npu_emu.scheduler.protocols import SchedStream
    from npu_emu.scheduler.task import Task
    from npu_emu.scheduler.task_scheduler import TaskScheduler


class ModelLink(Protocol):
    """A model as its bound streams and its labels see it."""

    id: int
    destroyed: bool
    exec_stream: SchedStream | None   # the stream its last execute_async was put on
    running: bool

    def add_task(self, stream: SchedStream, task: Task) -> None: ...

    def abort(self) -> None: ...


class CaptureLink(Protocol):
    """ACL Graph capture as the core sees it: where a capturing stream's tasks go, and the
    rule that nothing synchronises while a capture is under way."""

    def route(self, stream: SchedStream, task: Task) -> bool: ...

    def model_of(self, stream: SchedStream) -> ModelLink | None: ...

    def check_not_capturing_any(self, what: str) -> None: ...

    def check_not_captured(self, stream: SchedStream) -> None: ...


class DeviceConfig(Protocol):
    """The part of the runtime's configuration a device is built from."""

    cost: CostModel
    memory_bytes: int
    max_events: int
    max_notifies: int


class RuntimeLink(Protocol):
    """The process-wide runtime (seed 003 §1.3.1) as the objects it owns see it."""

    bus: TraceBus
    config: DeviceConfig
    capture: CaptureLink
    host: HostMemory
    models: list[ModelLink]

    def next_id(self, kind: str) -> int: ...

    def stream_name(self, rt_id: int) -> str: ...

    def report_fault(self, kind: str, message: str) -> None: ...


class ContextLink(Protocol):
    """A context as the streams it owns see it (npu_emu/core/context.py)."""

    id: int
    primary: bool


class DeviceLink(Protocol):
    """The device (npu_emu/core/device.py) as the objects it owns see it: events, notifies,
    streams, contexts and kernel tasks hold their device, which imports them."""

    id: int
    runtime: RuntimeLink
    cost: CostModel
    memory: DeviceMemory
    scheduler: TaskScheduler
    event_flags: bytearray
    event_times: dict[int, int]
    notify_flags: bytearray
    notify_counts: dict[int, int]

    def submit(self, stream: SchedStream, task: Task) -> Task: ...

    def new_stream(self, context: ContextLink | None, priority: int = 0,
                   persistent: bool = False) -> SchedStream: ...

    def synchronize_stream(self, stream: SchedStream, timeout_ms: int = -1) -> int: ...
