"""LABEL_SET: mark this point of the stream as the model's label ``label_id`` (GE's
LabelSetTaskInfo); LabelGoto and LabelSwitchByIndex jump here."""
from __future__ import annotations

from ge_core.model_task_type import ModelTaskType
from ge_core.runtime.v1.task_info.task_info import TaskInfo, register_task_info
from npu_emu.scheduler.task import Task


@register_task_info(ModelTaskType.LABEL_SET)
class LabelSetTaskInfo(TaskInfo):
    def init(self) -> None:
        self.label = self.model.label(self.task_def.label_set.label_id)

    def launch(self) -> Task:
        return self.stream.label_set(self.label)
