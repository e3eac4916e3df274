"""EVENT_RECORD: a Send node's record of the model's event ``event_id`` (GE's
EventRecordTaskInfo; the event is one of those InitNodes created, by its id in the model)."""
from __future__ import annotations

from ge_core.model_task_type import ModelTaskType
from ge_core.runtime.v1.task_info.task_info import TaskInfo, register_task_info
from npu_emu.scheduler.task import Task


@register_task_info(ModelTaskType.EVENT_RECORD)
class EventRecordTaskInfo(TaskInfo):
    def init(self) -> None:
        self.event = self.model.event(self.task_def.event_id)

    def launch(self) -> Task:
        return self.stream.record_event(self.event)
