"""NOTIFY_RECORD: a SendNotify node's record of the model's notify ``notify_id`` (GE's
NotifyRecordTaskInfo, used instead of events with ge.event=notify)."""
from __future__ import annotations

from ge_core.model_task_type import ModelTaskType
from ge_core.runtime.v1.task_info.task_info import TaskInfo, register_task_info
from npu_emu.scheduler.task import Task


@register_task_info(ModelTaskType.NOTIFY_RECORD)
class NotifyRecordTaskInfo(TaskInfo):
    def init(self) -> None:
        self.notify = self.model.notify(self.task_def.notify_id)

    def launch(self) -> Task:
        return self.stream.record_notify(self.notify)
