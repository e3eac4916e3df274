"""STREAM_ACTIVE: start another of the model's streams (GE's StreamActiveTaskInfo). The target
was bound with the DEFAULT flag, so it runs only when a task like this one activates it."""
from __future__ import annotations

from ge_core.model_task_type import ModelTaskType
from ge_core.runtime.v1.task_info.task_info import TaskInfo, register_task_info
from npu_emu.scheduler.task import Task


@register_task_info(ModelTaskType.STREAM_ACTIVE)
class StreamActiveTaskInfo(TaskInfo):
    def init(self) -> None:
        self.target = self.model.stream(self.task_def.stream_active.active_stream_id)

    def launch(self) -> Task:
        return self.stream.active_stream(self.target)
