"""SingleOpModel: one op compiled as a model of its own, for aclopExecute (GE's
runtime/v1/single_op/single_op_model.cc and single_op.cc): the op between Data nodes and a
NetOutput - the minimal graph GE builds when PyTorch hands it one op - through the normal
compile, then built into an op that launches its tasks straight on the caller's stream:

    SingleOp         shapes fixed when compiled (BuildOp): built like any static model
                     (streams, memory, tasks), then BuildTaskList turns each TaskDef into an
                     OpTask (TbeOpTask, AiCpuCCTask, AiCpuTask, op_task.py) and records which
                     of their args hold the op's inputs and outputs (the arg table).
                     ExecuteAsync writes the caller's buffers there and launches each task.
    DynamicSingleOp  unknown dims (BuildDynamicOp): one OpTask for the op's one node
                     (BuildTaskListForDynamicOp), its output shapes inferred at each call; an op
                     whose output shape depends on an input's value (ReduceSum's axes), or that
                     compiled into more than one node, runs as a hybrid model instead
                     (NeedHybridModel), InferShape reading the values back at run time.

No DavinciModel and no ModelV2Executor: a single op has no model to load, only tasks. Each build
and each execution is a stage on the trace bus (BuildOp, BuildDynamicOp, ExecuteAsync).
"""
from __future__ import annotations

import struct
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

import numpy as np

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.compiler.model_builder import build_model
from ge_core.graph import ComputeGraph, GeTensorDesc, Node, OpDesc
from ge_core.graph.attr_names import ATTR_NAME_INDEX, ENGINE, OPSET
from ge_core.graph.ge_tensor import ABSENT_DESC
from ge_core.model_task_type import KernelType, ModelTaskType, task_type_name
from ge_core.om.ge_model import GeModel
from ge_core.om.proto.ge_ir_pb2 import OpDef
from ge_core.ops.shape_refiner import InferShapeError, infer_for_inputs
from ge_core.runtime.errors import GeError
from ge_core.runtime.hybrid import HybridDavinciModel
from ge_core.runtime.model_io import IoDesc, check_feed, model_inputs, model_outputs
from ge_core.runtime.model_memory import ModelMemory, device_to_host, host_to_device
from ge_core.runtime.op_kernel import LATEST_OPSET, UNIT_OF_KERNEL_TYPE
from ge_core.runtime.single_op.op_task import (DYNAMIC_TASK_OF_ENGINE, KERNEL_TASK_OF_TYPE,
                                               AiCpuTask, KernelOpTask, MemcpyAsyncTask,
                                               OpTask)
from ge_core.runtime.v1.model_manager import ModelManager
from ge_core.runtime.v2 import ExecuteResult
from ge_core.stage_events import StageBegin, StageEnd
from npu_emu.core.kernel_task import TensorArg, tensor_arg
from npu_emu.core.stream import Stream
from npu_emu.scheduler.cost_model import Unit

SINGLE_OP_PREFIX = "aclop_"   # GE names (and dumps) a single op's graph so
_IO_TYPES = frozenset({"Data", "NetOutput"})


def single_op_graph(op_type: str, input_descs: Sequence[GeTensorDesc | None],
                    attrs: dict[str, Any], num_outputs: int, opset: int) -> ComputeGraph:
    """Data per present input -> the op -> NetOutput (None: an optional input left out)."""
    graph = ComputeGraph(f"{SINGLE_OP_PREFIX}{op_type}", attrs={OPSET: opset})
    op = graph.add_node(OpDesc(op_type, op_type, len(input_descs), num_outputs, attrs))
    for i, desc in enumerate(input_descs):
        if desc is None:
            op.op_desc.update_input_desc(i, ABSENT_DESC)
            continue
        data = graph.add_node(OpDesc(f"input_{i}", "Data", 0, 1, {ATTR_NAME_INDEX: i}))
        data.op_desc.update_output_desc(0, desc)
        data.op_desc.set_output_name(0, f"input_{i}")
        data.out_data_anchors[0].link_to(op.in_data_anchors[i])
    net_output = graph.add_node(OpDesc("NetOutput", "NetOutput", num_outputs, 0))
    for i in range(num_outputs):
        net_output.op_desc.set_input_name(i, f"output_{i}")
        op.out_data_anchors[i].link_to(net_output.in_data_anchors[i])
    return graph


@contextmanager
def _stage(stream: Stream, name: str, graph: ComputeGraph) -> Iterator[None]:
    bus = stream.device.runtime.bus
    bus.emit(StageBegin, name, graph.name)
    yield
    bus.emit(StageEnd, name, graph.name, len(graph.nodes))


def _unpack(raw: bytes) -> list[int]:
    return list(struct.unpack(f"<{len(raw) // 8}Q", raw))


class SingleOpModel:
    """The op as a model: its minimal graph, compiled, then built into the kind of op its
    shapes allow (GE's SingleOpModel::BuildOp / BuildDynamicOp)."""

    def __init__(self, op_type: str, input_descs: Sequence[GeTensorDesc | None],
                 attrs: dict[str, Any], num_outputs: int = 1, opset: int = LATEST_OPSET) -> None:
        self.graph = single_op_graph(op_type, input_descs, attrs, num_outputs, opset)
        self.opset = opset

    def build_op(self, stream: Stream) -> "SingleOp | DynamicSingleOp":
        """Compile; a graph left with unknown dims - declared so, or an output shape that
        depends on an input's value - becomes a DynamicSingleOp, else it is built and its
        TaskDefs become the SingleOp's tasks."""
        compile_graph(self.graph, CompileOptions(dump=None))
        if ModelManager.is_need_hybrid_load(self.graph):
            with _stage(stream, "BuildDynamicOp", self.graph):
                return self._build_dynamic_op(stream)
        ge_model = build_model(self.graph).ge_model
        with _stage(stream, "BuildOp", ge_model.graph):
            return self._build_task_list(ge_model, stream)

    def _build_task_list(self, ge_model: GeModel, stream: Stream) -> "SingleOp":
        """InitModelMem, ParseInputsAndOutputs, then BuildTaskList: one OpTask per TaskDef,
        each arg that holds a Data's output or a NetOutput's input entered in the arg table
        under the caller's input or output index (GE's ParseArgTable)."""
        graph = ge_model.graph
        nodes = {n.name: n for n in graph.all_nodes()}
        op_list = [nodes[OpDef.FromString(raw).name] for raw in ge_model.task_def.op]
        memory = ModelMemory.allocate(stream.device, ge_model)
        op = SingleOp(graph, stream, memory)
        addr_mapping: dict[int, int] = {}
        for i, io in enumerate([*op.inputs, *op.outputs]):
            addr_mapping.setdefault(io.logical_addr, i)   # an input first: tasks read it
        try:
            for task_def in ge_model.task_def.task:
                task, logical = self._op_task(task_def, op_list[task_def.id], memory)
                if task is not None:
                    op.add_task(task, logical, addr_mapping)
            for k, io in enumerate(op.outputs, len(op.inputs)):
                if addr_mapping[io.logical_addr] != k:   # the op left the graph: Data -> NetOutput
                    op.add_output_copy(k, addr_mapping[io.logical_addr], io)
        except Exception:
            memory.release()
            raise
        return op

    def _op_task(self, task_def: Any, node: Node, memory: ModelMemory
                 ) -> tuple[OpTask | None, list[int]]:
        """The OpTask of one TaskDef and its logical args (GE's BuildTaskList's convert map)."""
        op_desc = node.op_desc
        if task_def.type == ModelTaskType.KERNEL:
            kernel_type = task_def.kernel.context.kernel_type
            cls = KERNEL_TASK_OF_TYPE.get(kernel_type)
            if cls is None:   # GE: ACL_ERROR_GE_OP_KERNEL_TYPE_INVALID
                raise GeError(f"single op {op_desc.type}: kernel type {kernel_type}; only TBE, "
                              f"AI_CPU and CUST_AI_CPU kernels are supported")
            logical = _unpack(task_def.kernel.args)
            unit = UNIT_OF_KERNEL_TYPE[KernelType(kernel_type)]
            return cls(op_desc, [memory.translate(a) for a in logical], self.opset,
                       unit), logical
        if task_def.type == ModelTaskType.KERNEL_EX:
            logical = _unpack(task_def.kernel_ex.args)
            return AiCpuTask(op_desc, [memory.translate(a) for a in logical], self.opset,
                             Unit.AI_CPU), logical
        if task_def.type == ModelTaskType.MEMCPY_ASYNC:
            copy = task_def.memcpy_async
            logical = [copy.dst, copy.src]
            desc = op_desc.input_descs[0]
            count = min(copy.count, desc.shape.num_elements() * desc.dtype.to_numpy().itemsize)
            return MemcpyAsyncTask(op_desc, [memory.translate(a) for a in logical],
                                   count), logical
        if task_def.type == ModelTaskType.END_GRAPH:
            # NetOutput's END_GRAPH ends a sunk model; GE's convert map has no entry for it
            # (an op's tasks are launched one by one, nothing to end).
            return None, []
        # GE skips an unknown type with a warning; here the op's result would be lost, so no.
        raise GeError(f"single op {op_desc.type}: no single-op task for a "
                      f"{task_type_name(task_def.type)} task")

    def _build_dynamic_op(self, stream: Stream) -> "DynamicSingleOp":
        if need_hybrid_model(self.graph, self.opset):
            hybrid = HybridDavinciModel(self.graph)
            hybrid.init(stream)
            return DynamicSingleOp(self.graph, stream, hybrid_model=hybrid)
        (node,) = [n for n in self.graph.all_nodes() if n.type not in _IO_TYPES]
        cls, kernel_type = DYNAMIC_TASK_OF_ENGINE[node.op_desc.get_attr(ENGINE)]
        task = cls(node.op_desc, [], self.opset, UNIT_OF_KERNEL_TYPE[kernel_type])
        return DynamicSingleOp(self.graph, stream, op_task=task)


def infer_depends(op_desc: OpDesc, opset: int) -> bool:
    """Whether some output's shape needs an input's value, not only the input shapes (GE's
    CheckInferDepend): InferShape with every unknown dim made 1 still leaves it unknown."""
    probe = [None if d.absent else (tuple(1 if x < 0 else x for x in d.shape.dims), d.dtype)
             for d in op_desc.input_descs]
    try:
        descs = infer_for_inputs(op_desc, probe, {}, opset)
    except InferShapeError:   # the probe's shapes do not suit the op: decide at run time
        return True
    return any(d.shape.is_unknown for d in descs)


def need_hybrid_model(graph: ComputeGraph, opset: int) -> bool:
    """GE's SingleOpModel::NeedHybridModel: an output shape that depends on an input's value
    (the values must be copied back to the host), more than one node with tasks, or a node on
    an engine that has no single-op task."""
    nodes = [n for n in graph.all_nodes() if n.type not in _IO_TYPES]
    if len(nodes) != 1 or nodes[0].op_desc.get_attr(ENGINE) not in DYNAMIC_TASK_OF_ENGINE:
        return True
    return infer_depends(nodes[0].op_desc, opset)


class _UserBuffers:
    """The device buffers of one call (what the caller of aclopExecuteV2 passes): host inputs
    copied in, outputs read back, all freed at the end."""

    def __init__(self, stream: Stream) -> None:
        self.device = stream.device
        self.allocated: list[int] = []

    def alloc(self, shape: Sequence[int], dtype: np.dtype) -> TensorArg:
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        addr = self.device.malloc(max(nbytes, 1))
        self.allocated.append(addr)
        return tensor_arg(addr, shape, dtype)

    def upload(self, array: np.ndarray) -> TensorArg:
        arg = self.alloc(array.shape, array.dtype)
        if array.nbytes:
            host_to_device(self.device, arg.addr, array)
        return arg

    def free(self) -> None:
        for addr in self.allocated:
            self.device.free(addr)
        self.allocated.clear()


class SingleOp:
    """A static single op: its tasks, built once, launched on its stream at each call."""

    def __init__(self, graph: ComputeGraph, stream: Stream, memory: ModelMemory) -> None:
        self.graph = graph
        self.stream = stream
        self.memory = memory
        self.inputs: list[IoDesc] = model_inputs(graph)
        self.outputs: list[IoDesc] = model_outputs(graph)
        self.tasks: list[OpTask] = []
        # by the caller's arg index (inputs, then outputs): the task args that hold it
        self.arg_table: list[list[tuple[OpTask, int]]] = [
            [] for _ in range(len(self.inputs) + len(self.outputs))]
        self.executions = 0

    def add_task(self, task: OpTask, logical: list[int], addr_mapping: dict[int, int]) -> None:
        """GE's ParseArgTable: each arg that holds an input or output, under its index."""
        for position, addr in enumerate(logical):
            if addr in addr_mapping:
                self.arg_table[addr_mapping[addr]].append((task, position))
        self.tasks.append(task)

    def add_output_copy(self, output: int, source: int, io: IoDesc) -> None:
        """An output that is an input (a pass removed the op: Identity, a static Reshape) is
        copied there, as GE's MemcpyAddrAsyncPass puts a MemcpyAddrAsync between a Data and
        the NetOutput (compiler/graph/passes/memory_conflict/memcpy_addr_async_pass.cc)."""
        copy = MemcpyAsyncTask(self.graph.output_node.op_desc, [0, 0], io.nbytes)
        self.arg_table[output].append((copy, 0))
        self.arg_table[source].append((copy, 1))
        self.tasks.append(copy)

    def execute_async(self, inputs: Sequence[TensorArg], outputs: Sequence[TensorArg]) -> None:
        """GE's SingleOpImpl::ExecuteAsync: UpdateArgs writes the caller's buffers into each
        task's args, then each task is launched on the stream."""
        for arg, entries in zip([*inputs, *outputs], self.arg_table):
            for task, position in entries:
                task.args[position] = arg.addr
        for task in self.tasks:
            task.launch_kernel(self.stream)

    def execute(self, inputs: Sequence[np.ndarray | None]) -> ExecuteResult:
        """Host arrays in, host arrays out: buffers, ExecuteAsync, a synchronize."""
        feeds = [check_feed(io.name, x, io.dims, io.dtype.name)
                 for io, x in zip(self.inputs, [x for x in inputs if x is not None])]
        if len(feeds) != len(self.inputs):
            raise GeError(f"single op {self.graph.name}: {len(feeds)} inputs given, it takes "
                          f"{len(self.inputs)}")
        buffers = _UserBuffers(self.stream)
        try:
            start = _now(self.stream)
            args = [buffers.upload(x) for x in feeds]
            outs = [buffers.alloc(io.dims, io.dtype) for io in self.outputs]
            with _stage(self.stream, "ExecuteAsync", self.graph):
                self.execute_async(args, outs)
            result = _result(self.stream, [io.name for io in self.outputs], outs, start)
        finally:
            buffers.free()
        self.executions += 1
        return result

    def release(self) -> None:
        self.memory.release()


class DynamicSingleOp:
    """A single op with unknown dims: one OpTask launched with each call's shapes, or a
    hybrid model when its one task cannot serve (NeedHybridModel)."""

    def __init__(self, graph: ComputeGraph, stream: Stream, op_task: KernelOpTask | None = None,
                 hybrid_model: HybridDavinciModel | None = None) -> None:
        self.graph = graph
        self.stream = stream
        self.op_task = op_task
        self.hybrid_model = hybrid_model
        self.executions = 0

    def execute(self, inputs: Sequence[np.ndarray | None]) -> ExecuteResult:
        self.executions += 1
        present = [x for x in inputs if x is not None]
        if self.hybrid_model is not None:
            return self.hybrid_model.execute(present)
        assert self.op_task is not None
        buffers = _UserBuffers(self.stream)
        try:
            start = _now(self.stream)
            feeds = iter(buffers.upload(np.asarray(x, order="C")) for x in present)
            args = [None if d.absent else next(feeds) for d in self.op_task.op_desc.input_descs]
            descs = self.op_task.update_run_info(args)
            outs = [buffers.alloc(d.shape.dims, d.dtype.to_numpy()) for d in descs]
            with _stage(self.stream, "ExecuteAsync", self.graph):
                self.op_task.launch_with(self.stream, args, outs)
            return _result(self.stream, [f"output_{i}" for i in range(len(outs))], outs,
                           start)
        finally:
            buffers.free()

    def release(self) -> None:
        if self.hybrid_model is not None:
            self.hybrid_model.unload()


def _now(stream: Stream) -> int:
    return max(stream.device.now, stream.device.host_now)


def _result(stream: Stream, names: list[str], outs: list[TensorArg],
            start: int) -> ExecuteResult:
    """Synchronize the stream (the caller's aclrtSynchronizeStream), read the outputs back."""
    stream.synchronize()
    values = {name: device_to_host(stream.device, arg) for name, arg in zip(names, outs)}
    return ExecuteResult(values, stream.device.now - start, start, stream.device.now)
