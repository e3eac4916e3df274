"""STREAM_LABEL_GOTO: jump to the model's label ``label_id`` (GE's LabelGotoExTaskInfo): a
loop's back edge, or the end of an If branch."""
from __future__ import annotations

from ge_core.model_task_type import ModelTaskType
from ge_core.runtime.v1.task_info.task_info import TaskInfo, register_task_info
from npu_emu.scheduler.task import Task


@register_task_info(ModelTaskType.STREAM_LABEL_GOTO)
class LabelGotoTaskInfo(TaskInfo):
    def init(self) -> None:
        self.label = self.model.label(self.task_def.label_goto_ex.label_id)

    def launch(self) -> Task:
        return self.stream.label_goto(self.label)
