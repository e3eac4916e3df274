"""What the task scheduler needs from the floor above it, as narrow protocols: the TS reads and
sets these and nothing else, so it imports no stream, device or label (npu_emu/core/ satisfies
them). A test checks the floors (tests/test_layers.py)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Protocol

from npu_emu.scheduler.events import StreamState
from npu_emu.scheduler.sq_cq import CompletionQueue, SubmissionQueue

if TYPE_CHECKING:
    from npu_emu.base.errors import AclError, DeadlockError
    from npu_emu.base.trace import TraceBus
    from npu_emu.scheduler.cost_model import CostModel
    from npu_emu.scheduler.task import Task


class SchedStream(Protocol):
    """A stream as the TS sees it: a queue pair, a state and a place in the ready heap."""

    id: int
    index: int            # the scheduler's slot
    key: int              # ready-heap order: priority, then creation
    sq: SubmissionQueue
    cq: CompletionQueue
    state: StreamState
    waiting: Task | None
    persistent: bool      # a model stream: keeps its SQEs and is activated
    error: AclError | None
    model: object | None  # the model it is bound to, if any

    @property
    def pending(self) -> int: ...

    @property
    def label(self) -> str: ...   # its name in messages (npu_emu/base/stream_name.py)

    def queued(self) -> Iterable[Task]: ...


class SchedLabel(Protocol):
    """A label: where a jump lands (seed 002 §3.2)."""

    id: int
    stream: SchedStream
    pos: int


class SchedRuntime(Protocol):
    bus: TraceBus

    def report_fault(self, kind: str, message: str) -> None: ...


class SchedDevice(Protocol):
    """The device the TS schedules: its units (cost), its sync flags and its memory copies."""

    runtime: SchedRuntime
    cost: CostModel
    event_flags: bytearray
    event_times: dict[int, int]
    notify_flags: bytearray
    notify_counts: dict[int, int]

    def copy(self, dst: int, src: int, count: int) -> None: ...

    def deadlock_error(self, waiter: str) -> DeadlockError:
        """The error a host wait raises when no stream can progress (npu_emu/checkers)."""
