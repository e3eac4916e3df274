"""KERNEL: a kernel launch (GE's KernelTaskInfo). The args table holds logical addresses - each
present input, each output, each workspace - and the kernel is found by name (KernelDef's
kernel_name: our numpy kernels, where GE registers a TBE binary's handle)."""
from __future__ import annotations

import struct

from ge_core.model_task_type import KernelType, ModelTaskType
from ge_core.runtime.op_kernel import OpKernel, UNIT_OF_KERNEL_TYPE, args_count, tensor_args
from ge_core.runtime.v1.task_info.task_info import AddressTaskInfo, register_task_info
from npu_emu.base.errors import AclError
from npu_emu.scheduler.cost_model import Unit
from npu_emu.scheduler.task import Task


@register_task_info(ModelTaskType.KERNEL)
class KernelTaskInfo(AddressTaskInfo):
    def args(self) -> bytes:
        return self.task_def.kernel.args

    def unit(self) -> Unit:
        kernel_type = self.task_def.kernel.context.kernel_type
        if kernel_type not in UNIT_OF_KERNEL_TYPE:
            raise self.fail(f"kernel type {kernel_type} runs on no unit this device has")
        return UNIT_OF_KERNEL_TYPE[KernelType(kernel_type)]

    def init(self) -> None:
        super().init()
        if len(self.logical) < args_count(self.op_desc):
            raise self.fail(f"args table of {len(self.logical)} addresses, the op needs "
                            f"{args_count(self.op_desc)}")
        self.kernel = OpKernel.of(self.op_desc, self.model.opset, self.unit())

    def logical_addresses(self) -> list[int]:
        raw = self.args()
        if len(raw) % 8:
            raise self.fail(f"args of {len(raw)} bytes are not a table of u64 addresses")
        return list(struct.unpack(f"<{len(raw) // 8}Q", raw))

    def build(self, addresses: list[int]) -> Task:
        try:
            return self.kernel.task(self.stream.device, *tensor_args(self.op_desc, addresses))
        except AclError as exc:   # no such kernel, a tensor the device cannot hold
            raise self.fail(str(exc)) from exc
