"""HCCL: a collective (GE's HcclTaskInfo; KernelHcclDef names the Hcom op). The emulated device
is one rank, so a collective's result is that of a group of one, on the HCCL link's time."""
from __future__ import annotations

from ge_core.graph.attr_names import INPUT_OFFSET, OUTPUT_OFFSET
from ge_core.model_task_type import ModelTaskType
from ge_core.runtime.v1.task_info.task_info import AddressTaskInfo, register_task_info
from npu_emu.feature.hccl import COLLECTIVES, make_hccl_task
from npu_emu.scheduler.task import Task

HCOM_PREFIX = "Hcom"   # HcomAllReduce -> the runtime's AllReduce


@register_task_info(ModelTaskType.HCCL)
class HcclTaskInfo(AddressTaskInfo):
    def init(self) -> None:
        self.collective = self.task_def.kernel_hccl.hccl_type.removeprefix(HCOM_PREFIX)
        if self.collective not in COLLECTIVES:
            raise self.fail(f"collective {self.task_def.kernel_hccl.hccl_type}; the device runs "
                            f"{', '.join(HCOM_PREFIX + c for c in COLLECTIVES)}")
        super().init()
        desc = self.op_desc.input_descs[0]
        self.count, self.dtype = desc.shape.num_elements(), self.numpy_dtype(desc.dtype)

    def logical_addresses(self) -> list[int]:
        return [self.first_offset(INPUT_OFFSET), self.first_offset(OUTPUT_OFFSET)]

    def build(self, addresses: list[int]) -> Task:
        send, recv = addresses
        return make_hccl_task(self.stream.device, self.collective, send, recv, self.count,
                              self.dtype)
