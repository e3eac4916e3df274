"""EVENT_WAIT: a Recv node's wait on the model's event ``event_id`` (GE's EventWaitTaskInfo).
On a model stream the wait resets the event as it passes, so every execution needs a new
record."""
from __future__ import annotations

from ge_core.model_task_type import ModelTaskType
from ge_core.runtime.v1.task_info.task_info import TaskInfo, register_task_info
from npu_emu.scheduler.task import Task


@register_task_info(ModelTaskType.EVENT_WAIT)
class EventWaitTaskInfo(TaskInfo):
    def init(self) -> None:
        self.event = self.model.event(self.task_def.event_id)

    def launch(self) -> Task:
        return self.stream.wait_event(self.event)
