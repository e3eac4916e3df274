"""Task generation: GE's task type numbers, one builder per task kind, per-stream topological
order, the model's counts and sizes, task_count, and errors that name the node."""
from __future__ import annotations

import struct

import numpy as np
import pytest
from onnx import TensorProto, helper

from build_testing import (LIGHT_MODELS, add_rts_node, annotate_build, compiled_light, if_graph,
                           onnx_graph)
from ge_core.compiler.task import TaskGenError, build_ge_model, generate_tasks, task_count
from ge_core.graph import ComputeGraph
from ge_core.graph.attr_names import (ATTR_NAME_ACTIVE_STREAM_LIST, ATTR_NAME_LABEL_SWITCH_LIST,
                                      EVENT_ID, INPUT_OFFSET, LABEL_ID, NOTIFY_ID, OUTPUT_OFFSET,
                                      STREAM_ID, WORKSPACE, WORKSPACE_BYTES)
from ge_core.om import KernelType, ModelTaskType
from ge_core.om.logical_memory import WEIGHT_BASE
from ge_core.om.proto import ge_ir_pb2

# GE's enum class ModelTaskType (hicann/ge inc/graph_metadef/common/opskernel/
# ops_kernel_info_types.h) in order, MODEL_TASK_ prefix dropped.
GE_TASK_TYPES = [
    "KERNEL", "EVENT_RECORD", "EVENT_WAIT", "FUSION_START", "FUSION_END", "KERNEL_EX", "HCCL",
    "STREAM_SWITCH", "STREAM_ACTIVE", "LABEL_SET", "LABEL_SWITCH", "LABEL_GOTO", "PROFILER_TRACE",
    "MEMCPY_ASYNC", "NOTIFY_RECORD", "NOTIFY_WAIT", "REDUCE_ASYNC", "RDMA_SEND", "EVENT_RESET",
    "END_GRAPH", "STREAM_SWITCH_N", "RDMA_DB_SEND", "MEMCPY_ADDR_ASYNC",
    "STREAM_LABEL_SWITCH_BY_INDEX", "STREAM_LABEL_GOTO", "MODEL_EXIT", "ALL_KERNEL",
    "PROFILER_TRACE_EX", "FFTS", "FFTS_PLUS", "DSA", "CMO", "BARRIER", "NPU_GET_FLOAT_STATUS",
    "NPU_CLEAR_FLOAT_STATUS", "DVPP", "NPU_GET_DEBUG_FLOAT_STATUS", "NPU_CLEAR_DEBUG_FLOAT_STATUS",
    "CMO_ADDR", "VECTOR_KERNEL", "VECTOR_ALL_KERNEL", "UPDATE", "NOP", "PREPROCESS_KERNEL",
    "SUPER_KERNEL", "MEM_EVENT_RECORD", "MEM_EVENT_WAIT", "FUSION_KERNEL", "KERNEL_LAUNCH_V2",
    "CCU_KERNEL", "CUSTOM_KERNEL"]
T = ModelTaskType


def relu_add() -> ComputeGraph:
    """x -> Relu (AI Core) -> Add (Vector) -> out."""
    return onnx_graph([helper.make_node("Relu", ["x"], ["r"], name="relu"),
                       helper.make_node("Add", ["r", "x"], ["y"], name="add")],
                      {"x": [2, 3]}, {"y": [2, 3]})


def op_name(task_def, task) -> str:
    return ge_ir_pb2.OpDef.FromString(task_def.op[task.id]).name


def test_task_type_numbers_are_ges():
    assert [t.name for t in ModelTaskType] == GE_TASK_TYPES
    assert [t.value for t in ModelTaskType] == list(range(len(GE_TASK_TYPES)))
    assert (T.STREAM_LABEL_SWITCH_BY_INDEX, T.STREAM_LABEL_GOTO, T.END_GRAPH) == (23, 24, 19)
    assert (KernelType.TE, KernelType.AI_CPU, KernelType.MIX_VECTOR_CORE) == (2, 6, 12)


def test_kernel_tasks_carry_the_op_its_args_and_the_unit():
    graph = annotate_build(relu_add())
    model = generate_tasks(graph)
    assert [(T(t.type).name, op_name(model, t)) for t in model.task] == \
        [("KERNEL", "relu"), ("KERNEL", "add"), ("END_GRAPH", "NetOutput")]
    relu, add = model.task[0].kernel, model.task[1].kernel
    assert (relu.kernel_name, relu.context.kernel_type) == ("Relu", KernelType.TE)
    assert (add.kernel_name, add.context.kernel_type) == ("Add", KernelType.MIX_VECTOR_CORE)
    node = graph.find_node("add").op_desc
    addresses = node.get_attr(INPUT_OFFSET) + node.get_attr(OUTPUT_OFFSET)
    assert struct.unpack(f"<{len(addresses)}Q", add.args) == tuple(addresses)
    assert (add.args_size, add.context.args_count) == (8 * len(addresses), len(addresses))
    assert [t.kernel.context.op_index for t in model.task[:2]] == [t.id for t in model.task[:2]]
    op = ge_ir_pb2.OpDef.FromString(model.op[model.task[1].id])
    assert (op.type, list(op.input_i), op.input_desc[0].shape.dim) == ("Add", addresses[:2], [2, 3])


def test_an_optional_input_left_out_has_no_arg():
    graph = annotate_build(onnx_graph([helper.make_node("Clip", ["x", "", "hi"], ["y"],
                                                        name="clip")],
                                      {"x": [4]}, {"y": [4]}, {"hi": np.float32(6)}))
    clip = graph.find_node("clip").op_desc
    x, absent, hi = clip.get_attr(INPUT_OFFSET)
    assert absent == -1
    args = generate_tasks(graph).task[0].kernel.args
    assert struct.unpack("<3Q", args) == (x, hi, clip.get_attr(OUTPUT_OFFSET)[0])


def test_workspaces_follow_the_outputs_in_the_args():
    graph = annotate_build(relu_add())
    graph.find_node("relu").op_desc.set_attr(WORKSPACE, [4096])
    graph.find_node("relu").op_desc.set_attr(WORKSPACE_BYTES, [1 << 20])
    model = generate_tasks(graph)
    args = model.task[0].kernel.args
    assert struct.unpack("<3Q", args)[2] == 4096
    assert model.memory_size >= 4096 + (1 << 20)


def test_tensorflow_aicpu_ops_become_kernel_ex_tasks():
    # The AI Core store's Maximum takes no int16, and CANN has no AI CPU Max kernel:
    # DNN_VM_AICPU, TF's kernels, whose builder writes KERNEL_EX
    graph = annotate_build(onnx_graph([helper.make_node("Max", ["x", "x"], ["y"], name="max")],
                                      {"x": [2]}, {"y": [2]}, elem=TensorProto.INT16))
    task = generate_tasks(graph).task[0]
    assert (task.type, task.kernel_ex.op_index, task.kernel_ex.args_size) == (T.KERNEL_EX, 0, 24)


def test_end_graph_goes_on_the_stream_of_net_outputs_producer():
    graph = annotate_build(relu_add())
    graph.find_node("relu").op_desc.set_attr(STREAM_ID, 1)
    graph.find_node("add").op_desc.set_attr(STREAM_ID, 2)
    assert generate_tasks(graph).task[-1].stream_id == 2
    graph.find_node("NetOutput").op_desc.set_attr(STREAM_ID, 1)  # the allocator's word wins
    assert generate_tasks(graph).task[-1].stream_id == 1


def two_streams():
    """relu on stream 0, add on stream 1 waiting for relu through event 0 and notify 0;
    stream 0 activates streams 1 and 2."""
    graph = annotate_build(relu_add())
    relu, add = graph.find_node("relu"), graph.find_node("add")
    add.op_desc.set_attr(STREAM_ID, 1)
    rts = [add_rts_node(graph, "active", "StreamActive", relu, add,
                        **{ATTR_NAME_ACTIVE_STREAM_LIST: [1, 2]}),
           add_rts_node(graph, "send", "Send", relu, add, **{EVENT_ID: 0}),
           add_rts_node(graph, "recv", "Recv", relu, add, **{EVENT_ID: 0}),
           add_rts_node(graph, "send_notify", "SendNotify", relu, add, **{NOTIFY_ID: 0}),
           add_rts_node(graph, "recv_notify", "RecvNotify", relu, add, **{NOTIFY_ID: 0})]
    for node, stream in zip(rts, (0, 0, 1, 0, 1)):
        node.op_desc.set_attr(STREAM_ID, stream)
    return graph


def test_sync_tasks_and_the_counts_they_make():
    model = generate_tasks(two_streams())
    by_op = {op_name(model, t): t for t in model.task}
    assert [t.stream_active.active_stream_id for t in model.task if t.type == T.STREAM_ACTIVE] \
        == [1, 2]  # one STREAM_ACTIVE per activated stream
    send, recv = by_op["send"], by_op["recv"]
    assert (send.type, send.event_id, send.event_ex.event_type) == (T.EVENT_RECORD, 0,
                                                                    T.EVENT_RECORD)
    assert (recv.type, recv.stream_id, recv.event_ex.op_index) == (T.EVENT_WAIT, 1, recv.id)
    assert (by_op["send_notify"].type, by_op["recv_notify"].type) == (T.NOTIFY_RECORD,
                                                                      T.NOTIFY_WAIT)
    assert by_op["recv_notify"].notify_id == 0
    assert (model.stream_num, model.event_num, model.attr["notify_num"]) == (3, 1, "1")


def test_each_rts_op_has_its_task_kind():
    graph = annotate_build(relu_add())
    relu, add = graph.find_node("relu"), graph.find_node("add")
    relu_out = relu.op_desc.get_attr(OUTPUT_OFFSET)[0]
    # (type, attrs, data inputs and outputs fed from relu, the task type)
    specs = [("LabelSet", {LABEL_ID: 3}, 0, 0, T.LABEL_SET),
             ("LabelGotoEx", {LABEL_ID: 3}, 0, 0, T.STREAM_LABEL_GOTO),
             ("LabelSwitchByIndex", {ATTR_NAME_LABEL_SWITCH_LIST: [1, 3]}, 1, 0,
              T.STREAM_LABEL_SWITCH_BY_INDEX),
             ("StreamSwitch", {ATTR_NAME_ACTIVE_STREAM_LIST: [1]}, 2, 0, T.STREAM_SWITCH),
             ("MemcpyAsync", {}, 1, 1, T.MEMCPY_ASYNC)]
    for type_, attrs, n_in, n_out, _ in specs:
        node = add_rts_node(graph, type_.lower(), type_, relu, add, **attrs, **{
            STREAM_ID: 0, INPUT_OFFSET: [relu_out] * n_in, OUTPUT_OFFSET: [1 << 20] * n_out})
        for _ in range(n_in):
            relu.out_data_anchor(0).link_to(node.add_input())
        node.op_desc.input_descs = [relu.op_desc.output_descs[0]] * n_in
        node.op_desc.output_descs = [relu.op_desc.output_descs[0]] * n_out
    model = generate_tasks(graph)
    by_op = {op_name(model, t): t for t in model.task}
    for type_, *_, task_type in specs:
        assert by_op[type_.lower()].type == task_type, type_
    assert by_op["labelset"].label_set.label_id == 3
    assert by_op["labelgotoex"].label_goto_ex.label_id == 3
    assert by_op["labelswitchbyindex"].label_switch_by_index.label_max == 2
    switch = by_op["streamswitch"].stream_switch
    assert (switch.true_stream_id, switch.value_ptr) == (1, relu_out)
    copy = by_op["memcpyasync"].memcpy_async
    assert (copy.dst, copy.src, copy.count) == (1 << 20, relu_out, 64)
    assert model.attr["label_num"] == "4"


def test_hccl_ops_become_hccl_tasks():
    graph = annotate_build(relu_add())
    graph.find_node("add").op_desc.set_attr("engine", "DNN_HCCL")
    task = generate_tasks(graph).task[1]
    assert (task.type, task.kernel_hccl.hccl_type) == (T.HCCL, "Add")


@pytest.mark.parametrize("model", LIGHT_MODELS)
def test_light_models_tasks_per_stream_keep_topological_order(model):
    graph = compiled_light(model)
    order = {n.name: k for k, n in enumerate(graph.topological_sort())}
    launching = [n for n in graph.topological_sort() if n.op_desc.get_attr(STREAM_ID) >= 0]
    for k, node in enumerate(launching):
        node.op_desc.set_attr(STREAM_ID, k % 3)  # spread over 3 streams (no sync needed here)
    task_def = generate_tasks(graph)
    streams: dict[int, list[int]] = {}
    for task in task_def.task:
        streams.setdefault(task.stream_id, []).append(order[op_name(task_def, task)])
    assert sorted(streams) == [0, 1, 2] and task_def.stream_num == 3
    for stream, positions in streams.items():
        assert positions == sorted(positions), stream
    counts = {name: 0 for name in order}
    for task in task_def.task:
        counts[op_name(task_def, task)] += 1
    assert counts == {n.name: task_count(n) for n in graph}
    assert task_def.task[-1].type == T.END_GRAPH
    kinds = {T(t.type) for t in task_def.task}
    assert kinds <= {T.KERNEL, T.KERNEL_EX, T.END_GRAPH}


def test_model_sizes_are_the_extents_of_what_was_placed():
    model = build_ge_model(compiled_light("squeezenet"))
    assert model.task_def.weight_size == len(model.weights) > 0
    consts = [n for n in model.graph if n.type == "Const"]
    weights = bytes(model.weights)
    for node in consts:
        start = node.op_desc.get_attr(OUTPUT_OFFSET)[0] - WEIGHT_BASE
        value = node.op_desc.get_attr("value").data
        assert weights[start:start + value.nbytes] == value.tobytes()
    assert model.attrs == {"memory_size": model.task_def.memory_size,
                           "weight_size": len(model.weights), "stream_num": 1,
                           "event_num": 0, "notify_num": 0, "label_num": 0}
    assert model.task_def.memory_size % 512 == 0


@pytest.mark.parametrize("unset, message", [
    (STREAM_ID, "node relu (Relu) launches tasks but has no stream_id"),
    (INPUT_OFFSET, "node relu (Relu) has no input_offset"),
    ("engine", "node relu (Relu) has no engine"),
])
def test_a_missing_annotation_names_the_node(unset, message):
    graph = annotate_build(relu_add())
    graph.find_node("relu").op_desc.del_attr(unset)
    with pytest.raises(TaskGenError) as err:
        generate_tasks(graph)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_offsets_that_do_not_match_the_ops_arity_are_refused():
    graph = annotate_build(relu_add())
    graph.find_node("add").op_desc.set_attr(INPUT_OFFSET, [0])
    with pytest.raises(TaskGenError, match=r"node add \(Add\): 1 input and 1 output offsets "
                                           r"for 2 inputs and 1 outputs"):
        generate_tasks(graph)


def test_host_cpu_ops_cannot_be_sunk():
    graph = annotate_build(relu_add())
    graph.find_node("add").op_desc.set_attr("engine", "DNN_VM_HOST_CPU")
    with pytest.raises(TaskGenError, match="engine DNN_VM_HOST_CPU launches no device task"):
        task_count(graph.find_node("add"))


def test_ge_local_ops_launch_nothing_and_subgraph_net_outputs_end_nothing():
    graph = annotate_build(relu_add())
    assert [task_count(graph.find_node(n)) for n in ("x", "relu", "NetOutput")] == [0, 1, 1]
    graph = annotate_build(if_graph())
    model = generate_tasks(graph)
    assert [T(t.type).name for t in model.task].count("END_GRAPH") == 1
    bodies = [n for n in graph.all_nodes() if n.graph is not graph]
    assert {n.type for n in bodies} >= {"NetOutput", "Neg"}
    assert all(task_count(n) == 0 for n in bodies if n.type == "NetOutput")
    # Each body's tasks come right after its parent's place in the root's order.
    names = [op_name(model, t) for t in model.task]
    assert names.index("then_neg") < names.index("else_abs") < names.index("NetOutput")
