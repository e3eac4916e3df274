"""NOTIFY_WAIT: a RecvNotify node's wait on the model's notify ``notify_id`` (GE's
NotifyWaitTaskInfo); the wait consumes the notify."""
from __future__ import annotations

from ge_core.model_task_type import ModelTaskType
from ge_core.runtime.v1.task_info.task_info import TaskInfo, register_task_info
from npu_emu.scheduler.task import Task


@register_task_info(ModelTaskType.NOTIFY_WAIT)
class NotifyWaitTaskInfo(TaskInfo):
    def init(self) -> None:
        self.notify = self.model.notify(self.task_def.notify_id)

    def launch(self) -> Task:
        return self.stream.wait_notify(self.notify)
