"""Labels: control flow inside a model (If / While / Case lowered by GE to label tasks).

A model's LabelIdAllocator hands out label ids: the runtime's LabelAllocator (label.hpp, seed 002),
named here for what it allocates, because GE's compiler has a LabelAllocator of its own
(ge_core/compiler/label/). LabelSet marks a position in a stream's SQ (the runtime keeps it as a
device address, devDstAddr_; here it is the stream and SQE index). A LabelGoto jumps there; a
LabelSwitchByIndex reads a uint32 index from device memory and jumps to the index-th label of its
table (an index past the end takes the last label, the default branch of a Case). A jump to a label
on another stream hands control over: the jumping stream goes inactive and the label's stream is
activated at the label, so loops survive AutoSplit."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from npu_emu.base.errors import LabelError
from npu_emu.scheduler.task import EFFECT, Task, TaskType

if TYPE_CHECKING:
    from npu_emu.core.links import ModelLink
    from npu_emu.scheduler.protocols import SchedStream
    from npu_emu.scheduler.task_scheduler import TaskScheduler


class Label:
    def __init__(self, model: ModelLink, label_id: int) -> None:
        self.model = model
        self.id = label_id
        self.stream: SchedStream | None = None
        self.pos = -1

    @property
    def destroyed(self) -> bool:
        """A label lives as long as its model."""
        return self.model.destroyed

    def __repr__(self) -> str:
        where = f" at s{self.stream.id}:{self.pos}" if self.stream is not None else " (unset)"
        return f"Label({self.id}{where})"


class LabelIdAllocator:
    def __init__(self, model: ModelLink, max_labels: int = 65535) -> None:
        self.model = model
        self.max_labels = max_labels
        self.labels: list[Label] = []

    def allocate(self) -> Label:
        if len(self.labels) >= self.max_labels:
            raise LabelError(f"model {self.model.id}: more than {self.max_labels} labels")
        label = Label(self.model, len(self.labels))
        self.labels.append(label)
        return label

    def release(self) -> None:
        self.labels.clear()


class LabelSetTask(Task):
    __slots__ = ("label",)

    def __init__(self, label: Label, duration: int) -> None:
        super().__init__(TaskType.LABEL_SET, f"LabelSet(L{label.id})", duration)
        self.label = label


class LabelGotoTask(Task):
    __slots__ = ("label",)

    def __init__(self, label: Label, duration: int) -> None:
        super().__init__(TaskType.STREAM_LABEL_GOTO, f"LabelGoto(L{label.id})", duration,
                         kind=EFFECT)
        self.label = label

    def complete(self, ts: TaskScheduler, stream: SchedStream) -> None:
        ts.jump(stream, _target(self.label))


class LabelSwitchByIndexTask(Task):
    __slots__ = ("index_addr", "labels")

    def __init__(self, index_addr: int, labels: tuple[Label, ...], duration: int) -> None:
        super().__init__(TaskType.STREAM_LABEL_SWITCH_BY_INDEX,
                         f"LabelSwitchByIndex({','.join(f'L{x.id}' for x in labels)})",
                         duration, kind=EFFECT, reads=((index_addr, 4),))
        self.index_addr, self.labels = index_addr, labels

    def complete(self, ts: TaskScheduler, stream: SchedStream) -> None:
        index = int(ts.device.memory.view(self.index_addr, (1,), np.uint32)[0])
        ts.jump(stream, _target(self.labels[min(index, len(self.labels) - 1)]))


def _target(label: Label) -> Label:
    if label.stream is None:
        raise LabelError(f"jump to label {label.id}, which was never set")
    return label
