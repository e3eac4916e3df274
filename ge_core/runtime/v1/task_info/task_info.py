"""TaskInfo: one TaskDef of a model, made ready (``init``, GE's InitTaskInfo) and put on its
stream (``distribute``, GE's Distribute). One small class per ModelTaskType, registered here by
type; DavinciModel's DoTaskSink makes one per TaskDef and calls both in task order.

Distribute emits TaskDistributed before it launches, so a debugger parked there sees the
TaskInfo, its stream and its node with the task not yet on the stream. Launching on a stream
bound to a model that is still building adds the task to the model (Device.submit routes it).

A task whose args hold addresses (AddressTaskInfo) resolves them through the model: each logical
address to a device address, a graph input's or output's to the buffer currently bound to it
(zero-copy). When a binding changes, ``refresh_args`` rewrites the already-sunk task's
addresses in place, as GE's zero-copy update rewrites an args table on the device.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, ClassVar

import numpy as np

from ge_core.graph.types import DataType
from ge_core.model_task_type import ModelTaskType, task_type_name
from ge_core.om.proto.task_pb2 import TaskDef
from ge_core.runtime.errors import ModelLoadError
from ge_core.events import TaskDistributed
from npu_emu.scheduler.task import Task

if TYPE_CHECKING:
    from ge_core.runtime.v1.davinci_model import DavinciModel

TASK_INFOS: dict[ModelTaskType, type["TaskInfo"]] = {}
# set by the device when enqueued, and Python's own
_DEVICE_SLOTS = frozenset({"task_id", "stream", "pos", "__weakref__"})


def register_task_info(task_type: ModelTaskType) -> Callable[[type["TaskInfo"]], type["TaskInfo"]]:
    def register(cls: type[TaskInfo]) -> type[TaskInfo]:
        cls.task_type = task_type
        TASK_INFOS[task_type] = cls
        return cls
    return register


def make_task_info(task_def: TaskDef, index: int, model: DavinciModel) -> "TaskInfo":
    cls = TASK_INFOS.get(task_def.type)
    if cls is None:
        known = ", ".join(t.name for t in TASK_INFOS)
        raise ModelLoadError(f"task {index}: no TaskInfo for task type "
                             f"{task_type_name(task_def.type)} ({task_def.type}) (known: {known})")
    return cls(task_def, index, model)


class TaskInfo:
    task_type: ClassVar[ModelTaskType]

    def __init__(self, task_def: TaskDef, index: int, model: DavinciModel) -> None:
        self.task_def = task_def
        self.index = index
        self.model = model
        self.stream_id = task_def.stream_id
        self.stream = model.stream(task_def.stream_id)
        self.node = model.node(task_def.id)     # TaskDef.id is the op index of its node
        self.op_desc = self.node.op_desc
        self.task: Task | None = None           # what Distribute put on the stream

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(#{self.index} {self.task_type.name} on stream "
                f"{self.stream_id}, {self.node.name})")

    def fail(self, reason: str) -> ModelLoadError:
        return ModelLoadError(f"task {self.index} ({self.task_type.name}) of node "
                              f"{self.node.name} ({self.node.type}): {reason}")

    def numpy_dtype(self, dtype: int) -> np.dtype:
        """The values a TaskDef's or its op's data type names: a type that holds none (a zeroed
        or unknown field of the file) is this task's fault, not Python's."""
        try:
            return DataType(dtype).to_numpy()
        except (ValueError, TypeError):
            raise self.fail(f"data type {dtype} holds no values") from None

    def first_offset(self, key: str) -> int:
        """The first of the op's offsets under ``key`` (input_offset, output_offset): an op
        written without them (a field of the file lost) is this task's fault."""
        offsets = self.op_desc.get_attr(key)
        if not isinstance(offsets, list) or not offsets or not isinstance(offsets[0], int):
            raise self.fail(f"its op has no {key} (it reads {offsets!r})")
        return offsets[0]

    def init(self) -> None:
        """InitTaskInfo: everything Distribute needs, resolved from the TaskDef."""

    def distribute(self) -> None:
        m = self.model
        m.bus.emit(TaskDistributed, m.model_id, self.index, self.task_type.name, self.stream_id,
                   self.stream.id, self.node.name, self.node.type)
        self.task = self.launch()

    def launch(self) -> Task:
        """Put the task on ``self.stream`` (through the runtime's launch API) and return it."""
        raise NotImplementedError


class AddressTaskInfo(TaskInfo):
    """A task whose args hold tensor addresses."""

    def init(self) -> None:
        self.logical = self.logical_addresses()

    def logical_addresses(self) -> list[int]:
        raise NotImplementedError

    def build(self, addresses: list[int]) -> Task:
        """The task on these device addresses (one per logical address), not submitted."""
        raise NotImplementedError

    def resolve(self) -> list[int]:
        return [self.model.resolve(a, self) for a in self.logical]

    def launch(self) -> Task:
        return self.stream.device.submit(self.stream, self.build(self.resolve()))

    def refresh_args(self) -> None:
        """Rewrite the sunk task's addresses from the current bindings (zero-copy update)."""
        fresh = self.build(self.resolve())
        for cls in type(fresh).__mro__:
            for slot in getattr(cls, "__slots__", ()):
                if slot not in _DEVICE_SLOTS:
                    setattr(self.task, slot, getattr(fresh, slot))
