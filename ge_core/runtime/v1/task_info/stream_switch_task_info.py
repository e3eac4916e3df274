"""STREAM_SWITCH: start ``true_stream_id`` if input 0 <condition> input 1 (GE's
StreamSwitchTaskInfo -> rtStreamSwitchEx, whose operands are both in device memory; the
TaskDef carries the condition in ``value`` and input 1's address in ``value_ptr``)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ge_core.graph import DataType
from ge_core.graph.attr_names import INPUT_OFFSET
from ge_core.om.model_task_type import ModelTaskType
from ge_core.runtime.v1.task_info.task_info import AddressTaskInfo, register_task_info
from npu_emu.stream import CONDITIONS, Stream, StreamSwitchTask
from npu_emu.task import Task
from npu_emu.task_scheduler import TaskScheduler


class StreamSwitchExTask(StreamSwitchTask):
    """The runtime's StreamSwitch compares with a constant; the Ex form reads both sides."""

    __slots__ = ("value_ptr",)

    def __init__(self, value_addr: int, condition: int, value_ptr: int, target: Stream,
                 dtype: str, duration: int) -> None:
        super().__init__(value_addr, condition, None, target, dtype, duration)
        self.value_ptr = value_ptr
        self.reads = self.reads + ((value_ptr, np.dtype(dtype).itemsize),)

    def complete(self, ts: TaskScheduler, stream: Stream) -> None:
        mem = ts.device.memory
        left: Any = mem.view(self.value_addr, (1,), self.dtype)[0]
        right: Any = mem.view(self.value_ptr, (1,), self.dtype)[0]
        if CONDITIONS[self.condition](left, right):
            ts.activate(self.target, 0, stream)


@register_task_info(ModelTaskType.STREAM_SWITCH)
class StreamSwitchTaskInfo(AddressTaskInfo):
    def init(self) -> None:
        switch = self.task_def.stream_switch
        if switch.value not in CONDITIONS:
            raise self.fail(f"condition {switch.value} (0..5)")
        self.target = self.model.stream(switch.true_stream_id)
        self.dtype = DataType(switch.data_type).to_numpy().name
        super().init()

    def logical_addresses(self) -> list[int]:
        return [self.op_desc.get_attr(INPUT_OFFSET)[0], self.task_def.stream_switch.value_ptr]

    def build(self, addresses: list[int]) -> Task:
        left, right = addresses
        return StreamSwitchExTask(left, self.task_def.stream_switch.value, right, self.target,
                                  self.dtype, self.stream.device.cost.launch_ns)
