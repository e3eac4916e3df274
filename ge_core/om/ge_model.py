"""GeModel: what the compiler hands the loader (GE's GeModel): the built graph, its task list,
its weight buffer and the model attrs the loader sizes resources by."""
from __future__ import annotations

from dataclasses import dataclass, field

from ge_core.graph import ComputeGraph
from ge_core.graph.attr_names import (ATTR_MODEL_EVENT_NUM, ATTR_MODEL_LABEL_NUM,
                                      ATTR_MODEL_MEMORY_SIZE, ATTR_MODEL_NOTIFY_NUM,
                                      ATTR_MODEL_STREAM_NUM, ATTR_MODEL_WEIGHT_SIZE)
from ge_core.model_task_type import ModelTaskType
from ge_core.om.proto import ge_ir_pb2, task_pb2
from ge_core.om.weights import Weights


def model_attrs(task_def: task_pb2.ModelTaskDef) -> dict[str, int]:
    """The counts and sizes DavinciModel allocates by, under GE's ATTR_MODEL_* names."""
    return {ATTR_MODEL_MEMORY_SIZE: task_def.memory_size,
            ATTR_MODEL_WEIGHT_SIZE: task_def.weight_size,
            ATTR_MODEL_STREAM_NUM: task_def.stream_num,
            ATTR_MODEL_EVENT_NUM: task_def.event_num,
            ATTR_MODEL_NOTIFY_NUM: int(task_def.attr[ATTR_MODEL_NOTIFY_NUM]),
            ATTR_MODEL_LABEL_NUM: int(task_def.attr[ATTR_MODEL_LABEL_NUM])}


@dataclass
class GeModel:
    name: str
    graph: ComputeGraph
    task_def: task_pb2.ModelTaskDef
    weights: Weights = field(default_factory=Weights)
    attrs: dict[str, int] = field(default_factory=dict)

    def op(self, op_index: int) -> ge_ir_pb2.OpDef:
        """The op a task names by its op_index."""
        return ge_ir_pb2.OpDef.FromString(self.task_def.op[op_index])

    def tasks_by_stream(self) -> dict[int, list[task_pb2.TaskDef]]:
        """Each stream's tasks in the order they will be sunk to it, streams by id."""
        streams: dict[int, list[task_pb2.TaskDef]] = {s: [] for s in range(self.stream_num)}
        for task in self.task_def.task:
            streams.setdefault(task.stream_id, []).append(task)
        return streams

    @property
    def stream_num(self) -> int:
        return self.task_def.stream_num

    @property
    def head_streams(self) -> list[int]:
        """The streams that run when the model starts: those no STREAM_ACTIVE, STREAM_SWITCH or
        STREAM_SWITCH_N task starts (GE's BindModelStream binds them with the HEAD flag)."""
        activated = {t.stream_active.active_stream_id for t in self.task_def.task
                     if t.type == ModelTaskType.STREAM_ACTIVE}
        activated |= {t.stream_switch.true_stream_id for t in self.task_def.task
                      if t.type == ModelTaskType.STREAM_SWITCH}
        activated |= {s for t in self.task_def.task if t.type == ModelTaskType.STREAM_SWITCH_N
                      for s in t.stream_switch_n.true_stream_id}
        return [s for s in range(self.stream_num) if s not in activated]

    @property
    def kernel_names(self) -> list[str]:
        """The kernels the model launches (what GE's TBE_KERNELS partition would carry as
        binaries; ours are the numpy kernels, found by name)."""
        return sorted({t.kernel.kernel_name for t in self.task_def.task
                       if t.type == ModelTaskType.KERNEL})
