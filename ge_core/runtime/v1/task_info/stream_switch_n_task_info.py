"""STREAM_SWITCH_N: start the stream of the gear whose values the input holds (GE's
StreamSwitchNTaskInfo -> rtStreamSwitchN). The TaskDef carries every gear's values one after
another (``target_value``, ``size`` each), one true stream per gear (``true_stream_id``, GE's
active_stream_list) and how many gears (``element_size``, the op's _batch_num)."""
from __future__ import annotations

from ge_core.graph.attr_names import INPUT_OFFSET
from ge_core.model_task_type import ModelTaskType
from ge_core.runtime.v1.task_info.task_info import AddressTaskInfo, register_task_info
from npu_emu.core.stream import StreamSwitchNTask
from npu_emu.scheduler.task import Task

SWITCH_DTYPES = {0: "int32", 1: "int64"}   # aclrtCompareDataType: ACL_RT_SWITCH_INT32, _INT64


@register_task_info(ModelTaskType.STREAM_SWITCH_N)
class StreamSwitchNTaskInfo(AddressTaskInfo):
    def init(self) -> None:
        switch = self.task_def.stream_switch_n
        if switch.data_type not in SWITCH_DTYPES:
            raise self.fail(f"data type {switch.data_type} (0 int32, 1 int64)")
        if len(switch.true_stream_id) < switch.element_size or \
                len(switch.target_value) != switch.size * switch.element_size:
            raise self.fail(f"{len(switch.target_value)} target values and "
                            f"{len(switch.true_stream_id)} true streams for {switch.element_size} "
                            f"gears of {switch.size} values")
        self.targets = tuple(self.model.stream(s)
                             for s in switch.true_stream_id[:switch.element_size])
        super().init()

    def logical_addresses(self) -> list[int]:
        return [self.first_offset(INPUT_OFFSET)]

    def build(self, addresses: list[int]) -> Task:
        switch = self.task_def.stream_switch_n
        return StreamSwitchNTask(addresses[0], switch.size, tuple(switch.target_value),
                                 self.targets, SWITCH_DTYPES[switch.data_type],
                                 self.stream.device.cost.launch_ns)
