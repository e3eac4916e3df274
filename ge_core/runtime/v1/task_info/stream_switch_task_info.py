"""STREAM_SWITCH: start ``true_stream_id`` if input 0 <condition> input 1 (GE's
StreamSwitchTaskInfo -> rtStreamSwitchEx, whose operands are both in device memory; the
TaskDef carries the condition in ``value`` and input 1's address in ``value_ptr``)."""
from __future__ import annotations

from ge_core.graph.attr_names import INPUT_OFFSET
from ge_core.model_task_type import ModelTaskType
from ge_core.runtime.v1.task_info.task_info import AddressTaskInfo, register_task_info
from npu_emu.core.stream import CONDITIONS, StreamSwitchExTask
from npu_emu.scheduler.task import Task


@register_task_info(ModelTaskType.STREAM_SWITCH)
class StreamSwitchTaskInfo(AddressTaskInfo):
    def init(self) -> None:
        switch = self.task_def.stream_switch
        if switch.value not in CONDITIONS:
            raise self.fail(f"condition {switch.value} (0..5)")
        self.target = self.model.stream(switch.true_stream_id)
        self.dtype = self.numpy_dtype(switch.data_type).name
        super().init()

    def logical_addresses(self) -> list[int]:
        return [self.first_offset(INPUT_OFFSET), self.task_def.stream_switch.value_ptr]

    def build(self, addresses: list[int]) -> Task:
        left, right = addresses
        return StreamSwitchExTask(left, self.task_def.stream_switch.value, right, self.target,
                                  self.dtype, self.stream.device.cost.launch_ns)
