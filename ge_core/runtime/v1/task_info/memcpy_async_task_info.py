"""MEMCPY_ASYNC: a device-to-device copy between two of the model's tensors (GE's
MemcpyAsyncTaskInfo; the RTS engine's MemcpyAsync op)."""
from __future__ import annotations

from ge_core.model_task_type import MemcpyKind, ModelTaskType
from ge_core.runtime.v1.task_info.task_info import AddressTaskInfo, register_task_info
from npu_emu.scheduler.cost_model import Unit
from npu_emu.scheduler.task import MemcpyTask, Task


@register_task_info(ModelTaskType.MEMCPY_ASYNC)
class MemcpyAsyncTaskInfo(AddressTaskInfo):
    def init(self) -> None:
        copy = self.task_def.memcpy_async
        if copy.kind != MemcpyKind.DEVICE_TO_DEVICE:
            raise self.fail(f"memcpy kind {copy.kind}: a sunk model copies device to device")
        if copy.count > copy.dst_max:
            raise self.fail(f"copies {copy.count} bytes into {copy.dst_max}")
        super().init()
        # The TaskDef counts GE's padded tensor size; the data is the tensor's own bytes, and a
        # zero-copy buffer bound in the tensor's place holds no more than those.
        desc = self.op_desc.input_descs[0]
        self.count = min(copy.count, desc.shape.num_elements() *
                         self.numpy_dtype(desc.dtype).itemsize)

    def logical_addresses(self) -> list[int]:
        copy = self.task_def.memcpy_async
        return [copy.dst, copy.src]

    def build(self, addresses: list[int]) -> Task:
        dst, src = addresses
        device, n = self.stream.device, self.count
        return MemcpyTask(dst, src, n, device.cost.memcpy_ns(n, False), Unit.SDMA,
                          ((src, n),), ((dst, n),))
