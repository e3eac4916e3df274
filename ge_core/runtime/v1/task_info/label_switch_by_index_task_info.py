"""STREAM_LABEL_SWITCH_BY_INDEX: jump to the index-th of the op's labels, the index (uint32)
read from input 0 at run time (GE's LabelSwitchByIndexTaskInfo; the label list stays on the op,
as GE's loader reads it through op_index)."""
from __future__ import annotations

from ge_core.graph.attr_names import ATTR_NAME_LABEL_SWITCH_LIST, INPUT_OFFSET
from ge_core.model_task_type import ModelTaskType
from ge_core.runtime.v1.task_info.task_info import AddressTaskInfo, register_task_info
from npu_emu.core.label import LabelSwitchByIndexTask
from npu_emu.scheduler.task import Task


@register_task_info(ModelTaskType.STREAM_LABEL_SWITCH_BY_INDEX)
class LabelSwitchByIndexTaskInfo(AddressTaskInfo):
    def init(self) -> None:
        ids = self.op_desc.get_attr(ATTR_NAME_LABEL_SWITCH_LIST) or []
        if len(ids) != self.task_def.label_switch_by_index.label_max or not ids:
            raise self.fail(f"{len(ids)} labels on the op, label_max "
                            f"{self.task_def.label_switch_by_index.label_max}")
        self.labels = tuple(self.model.label(i) for i in ids)
        super().init()

    def logical_addresses(self) -> list[int]:
        return [self.first_offset(INPUT_OFFSET)]

    def build(self, addresses: list[int]) -> Task:
        return LabelSwitchByIndexTask(addresses[0], self.labels,
                                      self.stream.device.cost.launch_ns)
