"""DVPP: an image op on the media unit (GE's DvppTaskInfo). The TaskDef names only its op; the
addresses are the op's own (each present input, each output, each workspace), as GE's loader
reads them through op_index."""
from __future__ import annotations

from ge_core.graph.attr_names import INPUT_OFFSET, OUTPUT_OFFSET, WORKSPACE
from ge_core.model_task_type import ModelTaskType
from ge_core.runtime.v1.task_info.kernel_task_info import KernelTaskInfo
from ge_core.runtime.v1.task_info.task_info import register_task_info
from npu_emu.scheduler.cost_model import Unit


@register_task_info(ModelTaskType.DVPP)
class DvppTaskInfo(KernelTaskInfo):
    def unit(self) -> Unit:
        return Unit.DVPP

    def logical_addresses(self) -> list[int]:
        op = self.op_desc
        inputs = op.get_attr(INPUT_OFFSET) or []
        present = [a for a, d in zip(inputs, op.input_descs) if not d.absent]
        return [*present, *(op.get_attr(OUTPUT_OFFSET) or []), *(op.get_attr(WORKSPACE) or [])]
