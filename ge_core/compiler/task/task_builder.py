"""One builder per task kind: what TaskDefs a node launches (GE: each engine's ops kernel
builder's GenerateTask, and the RTS engine's per-op classes SendOp, RecvOp, StreamActiveOp ...).

A builder is found by op type first (the RTS ops and NetOutput's END_GRAPH), then by the node's
engine. Every TaskDef carries ``id`` = the op index of the node that made it (GE's END_GRAPH
task does; here every task does, so a debugger can name any task's node), and its sub-def
carries ``op_index`` as GE's do.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Callable

from ge_core.graph import Node
from ge_core.graph.attr_names import (ATTR_NAME_ACTIVE_STREAM_LIST, ATTR_NAME_BATCH_NUM,
                                      ATTR_NAME_LABEL_SWITCH_LIST, ATTR_NAME_NOTASK,
                                      ATTR_NAME_PRED_VALUE,
                                      ATTR_NAME_STREAM_SWITCH_COND, ATTR_NAME_SWITCH_DATA_TYPE,
                                      ENGINE, EVENT_ID, INPUT_OFFSET, LABEL_ID, NOTIFY_ID,
                                      OUTPUT_OFFSET, STREAM_ID, WORKSPACE)
from ge_core.model_task_type import KernelType, MemcpyKind, ModelTaskType
from ge_core.om.logical_memory import tensor_size
from ge_core.om.proto.task_pb2 import TaskDef

BLOCK_DIM = 1  # our numpy kernels run whole on one core; TBE would split the work over cores
SWITCH_INT64 = 1   # aclrtCompareDataType ACL_RT_SWITCH_INT64, StreamSwitchNOp's default


class TaskGenError(Exception):
    """Why a node cannot become tasks; the message names the node."""


def _where(node: Node) -> str:
    return f"node {node.name} ({node.type})"


def _attr(node: Node, key: str) -> object:
    value = node.op_desc.get_attr(key)
    if value is None:
        raise TaskGenError(f"{_where(node)} has no {key}: the build stage that sets it "
                           f"has not run")
    return value


def _task(task_type: ModelTaskType, op_index: int, stream_id: int) -> TaskDef:
    return TaskDef(id=op_index, type=task_type, stream_id=stream_id)


def kernel_args(node: Node) -> list[int]:
    """The args table: the logical address of each present input, each output, each
    workspace (base + offset, as GE writes them; loading rebases each segment). Offsets come
    one per anchor, an optional input the model left out having none (-1); like GE's, the
    table skips it, and a loader tells which it was from the op's input descs."""
    op = node.op_desc
    inputs, outputs = _attr(node, INPUT_OFFSET), _attr(node, OUTPUT_OFFSET)
    if len(inputs) != len(op.input_descs) or len(outputs) != len(op.output_descs):
        raise TaskGenError(f"{_where(node)}: {len(inputs)} input and {len(outputs)} output "
                           f"offsets for {len(op.input_descs)} inputs and "
                           f"{len(op.output_descs)} outputs")
    present = [addr for addr, desc in zip(inputs, op.input_descs) if not desc.absent]
    args = [*present, *outputs, *(op.get_attr(WORKSPACE) or [])]
    if any(addr < 0 for addr in args):
        raise TaskGenError(f"{_where(node)}: an input, output or workspace has no address "
                           f"(offsets {inputs}, {outputs})")
    return args


def pack_args(addresses: list[int]) -> bytes:
    return struct.pack(f"<{len(addresses)}Q", *addresses)


# -- builders: (node, op_index, stream_id) -> tasks ----------------------------------------------
Build = Callable[[Node, int, int], list[TaskDef]]


def _kernel(kernel_type: KernelType) -> Build:
    def build(node: Node, op_index: int, stream_id: int) -> list[TaskDef]:
        task = _task(ModelTaskType.KERNEL, op_index, stream_id)
        args = kernel_args(node)
        kernel = task.kernel
        kernel.kernel_name, kernel.block_dim = node.type, BLOCK_DIM
        kernel.args = pack_args(args)
        kernel.args_size = len(kernel.args)
        kernel.context.kernel_type, kernel.context.op_index = kernel_type, op_index
        kernel.context.args_count = len(args)
        return [task]
    return build


def _kernel_ex(node: Node, op_index: int, stream_id: int) -> list[TaskDef]:
    task = _task(ModelTaskType.KERNEL_EX, op_index, stream_id)
    task.kernel_ex.op_index = op_index
    task.kernel_ex.args = pack_args(kernel_args(node))
    task.kernel_ex.args_size = len(task.kernel_ex.args)
    return [task]


def _dvpp(node: Node, op_index: int, stream_id: int) -> list[TaskDef]:
    # GE's DvppBuilder910B: the task names its op; the loader reads the op's addresses.
    kernel_args(node)   # every tensor has its address
    task = _task(ModelTaskType.DVPP, op_index, stream_id)
    task.dvpp_task.op_index = op_index
    return [task]


# GE's DsaTaskBuilder: the distribution each DSA op draws from
_DSA_DISTRIBUTION = {"GenBitMask": 0, "RandomUniform": 1, "RandomNormal": 2,
                     "RandomTruncatedNormal": 3}
DSA_SQE_TYPE = 15


def _dsa(node: Node, op_index: int, stream_id: int) -> list[TaskDef]:
    task = _task(ModelTaskType.DSA, op_index, stream_id)
    dsa = task.dsa_task
    dsa.op_index, dsa.start, dsa.sqe_type = op_index, 1, DSA_SQE_TYPE
    dsa.distribution_type = _DSA_DISTRIBUTION[
        node.type.removeprefix("DSA").removeprefix("Stateless")]
    dsa.args.output_addr = _attr(node, OUTPUT_OFFSET)[0]
    return [task]


def _hccl(node: Node, op_index: int, stream_id: int) -> list[TaskDef]:
    task = _task(ModelTaskType.HCCL, op_index, stream_id)
    task.kernel_hccl.op_index, task.kernel_hccl.hccl_type = op_index, node.type
    return [task]


def _event(task_type: ModelTaskType) -> Build:
    def build(node: Node, op_index: int, stream_id: int) -> list[TaskDef]:
        task = _task(task_type, op_index, stream_id)
        task.event_id = _attr(node, EVENT_ID)
        task.event_ex.op_index, task.event_ex.event_type = op_index, task_type
        return [task]
    return build


def _notify(task_type: ModelTaskType) -> Build:
    def build(node: Node, op_index: int, stream_id: int) -> list[TaskDef]:
        task = _task(task_type, op_index, stream_id)
        task.notify_id = _attr(node, NOTIFY_ID)  # GE's notify tasks carry no sub-def
        return [task]
    return build


def _stream_active(node: Node, op_index: int, stream_id: int) -> list[TaskDef]:
    tasks = []
    for active in _attr(node, ATTR_NAME_ACTIVE_STREAM_LIST):
        task = _task(ModelTaskType.STREAM_ACTIVE, op_index, stream_id)
        task.stream_active.op_index, task.stream_active.active_stream_id = op_index, active
        tasks.append(task)
    return tasks


def _stream_switch(node: Node, op_index: int, stream_id: int) -> list[TaskDef]:
    # GE's StreamSwitch compares input 0 with input 1 and starts active_stream_list[0] if true.
    task = _task(ModelTaskType.STREAM_SWITCH, op_index, stream_id)
    switch = task.stream_switch
    switch.op_index = op_index
    switch.true_stream_id = _attr(node, ATTR_NAME_ACTIVE_STREAM_LIST)[0]
    switch.value = node.op_desc.get_attr(ATTR_NAME_STREAM_SWITCH_COND, 0)
    switch.value_ptr = kernel_args(node)[1]
    switch.data_type = node.op_desc.input_descs[0].dtype
    return [task]


def _stream_switch_n(node: Node, op_index: int, stream_id: int) -> list[TaskDef]:
    # GE's StreamSwitchNOp: every gear's values (_pred_value_<i>) one after another, and the
    # stream each gear starts (active_stream_list, in gear order).
    gears = _attr(node, ATTR_NAME_BATCH_NUM)
    values = [_attr(node, f"{ATTR_NAME_PRED_VALUE}_{i}") for i in range(gears)]
    streams = _attr(node, ATTR_NAME_ACTIVE_STREAM_LIST)
    if len(streams) < gears:
        raise TaskGenError(f"{_where(node)}: {len(streams)} active streams for {gears} gears")
    task = _task(ModelTaskType.STREAM_SWITCH_N, op_index, stream_id)
    switch = task.stream_switch_n
    switch.op_index, switch.size, switch.element_size = op_index, len(values[0]), gears
    switch.data_type = node.op_desc.get_attr(ATTR_NAME_SWITCH_DATA_TYPE, SWITCH_INT64)
    switch.target_value.extend(v for gear in values for v in gear)
    switch.true_stream_id.extend(streams[:gears])
    return [task]


def _label_set(node: Node, op_index: int, stream_id: int) -> list[TaskDef]:
    task = _task(ModelTaskType.LABEL_SET, op_index, stream_id)
    task.label_set.op_index, task.label_set.label_id = op_index, _attr(node, LABEL_ID)
    return [task]


def _label_goto(node: Node, op_index: int, stream_id: int) -> list[TaskDef]:
    task = _task(ModelTaskType.STREAM_LABEL_GOTO, op_index, stream_id)
    task.label_goto_ex.op_index, task.label_goto_ex.label_id = op_index, _attr(node, LABEL_ID)
    return [task]


def _label_goto_unsupported(node: Node, op_index: int, stream_id: int) -> list[TaskDef]:
    # GE's RTS LabelGotoOp::Run refuses; its label makers write LabelGotoEx.
    raise TaskGenError(f"{_where(node)}: GE's RTS engine makes no task for LabelGoto; "
                       f"label lowering writes LabelGotoEx")


def _label_switch(node: Node, op_index: int, stream_id: int) -> list[TaskDef]:
    # The label ids themselves stay on the op (GE's loader reads them through op_index).
    task = _task(ModelTaskType.STREAM_LABEL_SWITCH_BY_INDEX, op_index, stream_id)
    task.label_switch_by_index.op_index = op_index
    task.label_switch_by_index.label_max = len(_attr(node, ATTR_NAME_LABEL_SWITCH_LIST))
    return [task]


def _memcpy_async(node: Node, op_index: int, stream_id: int) -> list[TaskDef]:
    task = _task(ModelTaskType.MEMCPY_ASYNC, op_index, stream_id)
    src, dst = _attr(node, INPUT_OFFSET)[0], _attr(node, OUTPUT_OFFSET)[0]
    copy = task.memcpy_async
    copy.op_index, copy.kind = op_index, MemcpyKind.DEVICE_TO_DEVICE
    copy.src, copy.count = src, tensor_size(node.op_desc.input_descs[0])
    copy.dst, copy.dst_max = dst, tensor_size(node.op_desc.output_descs[0])
    return [task]


def _end_graph(node: Node, op_index: int, stream_id: int) -> list[TaskDef]:
    return [_task(ModelTaskType.END_GRAPH, op_index, stream_id)]


@dataclass(frozen=True)
class TaskBuilder:
    build: Build
    count: Callable[[Node], int] = lambda node: 1


_ONE_PER_ACTIVE_STREAM = TaskBuilder(_stream_active,
                                     lambda node: len(_attr(node, ATTR_NAME_ACTIVE_STREAM_LIST)))
_NO_TASK = TaskBuilder(lambda node, op_index, stream_id: [], lambda node: 0)

# By op type: the RTS engine's ops, and NetOutput's END_GRAPH (GE's RTS op factory maps
# NetOutput to EndGraphOp for a static graph).
BUILDERS_BY_TYPE: dict[str, TaskBuilder] = {
    "Send": TaskBuilder(_event(ModelTaskType.EVENT_RECORD)),
    "Recv": TaskBuilder(_event(ModelTaskType.EVENT_WAIT)),
    "SendNotify": TaskBuilder(_notify(ModelTaskType.NOTIFY_RECORD)),
    "RecvNotify": TaskBuilder(_notify(ModelTaskType.NOTIFY_WAIT)),
    "StreamActive": _ONE_PER_ACTIVE_STREAM,
    "StreamSwitch": TaskBuilder(_stream_switch),
    "StreamSwitchN": TaskBuilder(_stream_switch_n),
    # GE's StreamMergeOp copies input 0 to the output; here the planner gives a merge's inputs
    # and output one buffer (mem_assist_info.py), which the branch's MemcpyAsync filled.
    "StreamMerge": _NO_TASK,
    "LabelSet": TaskBuilder(_label_set),
    "LabelGoto": TaskBuilder(_label_goto_unsupported),
    "LabelGotoEx": TaskBuilder(_label_goto),
    "LabelSwitchByIndex": TaskBuilder(_label_switch),
    "MemcpyAsync": TaskBuilder(_memcpy_async),
    "NetOutput": TaskBuilder(_end_graph),
}
# By engine, for every other op.
BUILDERS_BY_ENGINE: dict[str, TaskBuilder] = {
    "AIcoreEngine": TaskBuilder(_kernel(KernelType.TE)),
    "VectorEngine": TaskBuilder(_kernel(KernelType.MIX_VECTOR_CORE)),
    "DNN_VM_AICPU": TaskBuilder(_kernel_ex),
    "DNN_VM_AICPU_ASCEND": TaskBuilder(_kernel(KernelType.AI_CPU)),   # GE's CpuKernelBuilder
    "DNN_VM_DVPP": TaskBuilder(_dvpp),
    "DSAEngine": TaskBuilder(_dsa),
    "DNN_HCCL": TaskBuilder(_hccl),
    "DNN_VM_GE_LOCAL": _NO_TASK,
}


def builder_for(node: Node) -> TaskBuilder:
    if node.type == "NetOutput" and node.graph.parent_graph is not None:
        return _NO_TASK  # a subgraph's NetOutput hands results to its parent, it ends nothing
    if node.op_desc.get_attr(ATTR_NAME_NOTASK):
        return _NO_TASK  # ConcatNotaskPass's: its inputs already are its output
    builder = BUILDERS_BY_TYPE.get(node.type)
    if builder is not None:
        return builder
    engine = node.op_desc.get_attr(ENGINE)
    if engine is None:
        raise TaskGenError(f"{_where(node)} has no engine: EnginePlacer has not placed it")
    if engine not in BUILDERS_BY_ENGINE:
        # DNN_VM_HOST_CPU, say: it runs on the host, so a model sunk to the device can't run it.
        raise TaskGenError(f"{_where(node)}: engine {engine} launches no device task and the "
                           f"op is not GE-local (engines with tasks: "
                           f"{', '.join(BUILDERS_BY_ENGINE)}); exclude fewer engines")
    return BUILDERS_BY_ENGINE[engine]


def task_count(node: Node) -> int:
    """How many tasks ``node`` launches: what the stream splitter budgets per stream."""
    return builder_for(node).count(node)


def node_stream(node: Node) -> int | None:
    stream = node.op_desc.get_attr(STREAM_ID)
    return None if stream is None or stream < 0 else stream
