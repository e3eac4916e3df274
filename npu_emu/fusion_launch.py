"""Fusion launch (rtFusionLaunch, seed 003 §2.3): several sub-tasks of different kinds (AI Core
+ AI CPU, or an HCCL collective + AI Core) submitted as one SQE. The scheduler gang-schedules
it: it starts only when every unit its sub-tasks need is free at once, so no sub-task sits on a
unit waiting for its partner (the idle-core and deadlock problem of spreading them over
streams). It runs as long as its longest sub-task and retires them all together."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from npu_emu.cost_model import GANG
from npu_emu.errors import InvalidParamError
from npu_emu.task import EFFECT, Task, TaskType

if TYPE_CHECKING:
    from npu_emu.stream import Stream
    from npu_emu.task_scheduler import TaskScheduler


class FusionTask(Task):
    __slots__ = ("subtasks", "units")

    def __init__(self, subtasks: Sequence[Task]) -> None:
        if len(subtasks) < 2 or any(t.unit < 0 for t in subtasks):
            raise InvalidParamError("a fusion launch needs two or more sub-tasks that each run "
                                    "on an execution unit")
        super().__init__(TaskType.FUSION_KERNEL, "Fusion(" + "+".join(t.name for t in subtasks)
                         + ")", max(t.duration for t in subtasks), kind=EFFECT, unit=GANG,
                         reads=sum((t.reads for t in subtasks), ()),
                         writes=sum((t.writes for t in subtasks), ()))
        self.subtasks = tuple(subtasks)
        self.units = tuple(t.unit for t in subtasks)

    def complete(self, ts: TaskScheduler, stream: Stream) -> None:
        for t in self.subtasks:
            if t.kind == EFFECT:
                t.complete(ts, stream)


def fusion_launch(stream: Stream, subtasks: Sequence[Task]) -> Task:
    """Submit ``subtasks`` (made with make_kernel_task / make_hccl_task) as one fused SQE."""
    return stream.device.submit(stream, FusionTask(subtasks))
