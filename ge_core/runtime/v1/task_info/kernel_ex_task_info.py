"""KERNEL_EX: an AI CPU kernel (GE's KernelExTaskInfo): a kernel task like KERNEL's, its args
in KernelExDef, run on the AI CPU."""
from __future__ import annotations

from ge_core.model_task_type import ModelTaskType
from ge_core.runtime.v1.task_info.kernel_task_info import KernelTaskInfo
from ge_core.runtime.v1.task_info.task_info import register_task_info
from npu_emu.scheduler.cost_model import Unit


@register_task_info(ModelTaskType.KERNEL_EX)
class KernelExTaskInfo(KernelTaskInfo):
    def args(self) -> bytes:
        return self.task_def.kernel_ex.args

    def unit(self) -> Unit:
        return Unit.AI_CPU
