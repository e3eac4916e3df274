"""END_GRAPH: NetOutput's task in a static model (GE's EndGraphTaskInfo -> aclmdlRIEndTask): it
records the model's end-of-graph notify, which whoever executed the model waits on."""
from __future__ import annotations

from ge_core.model_task_type import ModelTaskType
from ge_core.runtime.v1.task_info.task_info import TaskInfo, register_task_info
from npu_emu.scheduler.task import Task


@register_task_info(ModelTaskType.END_GRAPH)
class EndGraphTaskInfo(TaskInfo):
    def launch(self) -> Task:
        return self.model.rt_model.end_task(self.stream)
