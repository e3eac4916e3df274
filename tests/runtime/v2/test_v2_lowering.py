"""Lowering a ComputeGraph to an ExecuteGraph: what lands in Init / Main / DeInit (tiny_cnn,
built: two streams, one Send/Recv pair), where the guarders' frees go, and what changes for an
unknown-shape graph and for hybrid lowering."""
from __future__ import annotations

import pytest
from onnx import TensorProto, helper
from v2_testing import build_tiny_cnn, world  # noqa: F401  (world is a fixture)

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.compiler.model_builder import build_model
from ge_core.parser import parse_onnx
from ge_core.runtime.hybrid import HYBRID_LOWERING
from ge_core.runtime.v2 import LoweringError, lower_graph
from ge_core.runtime.v2.kernel import get_kernel_func
from ge_core.runtime.v2.lowering import node_kind
from ge_core.runtime.v2.not_ge_kernels import NOT_GE_KERNELS


def _types(graph):
    return [n.type for n in graph.nodes]


def _names(graph, node_type):
    return [n.name for n in graph.nodes if n.type == node_type]


def test_init_makes_allocator_streams_events_and_weights(world):
    built = build_tiny_cnn()
    exe = lower_graph(built.ge_model.graph)
    consts = [n.name for n in built.graph.topological_sort() if n.type == "Const"]
    assert _types(exe.init)[0] == "CreateL1Allocator"
    assert _names(exe.init, "SinkWeightData") == consts
    assert _names(exe.init, "CreateStream") == ["stream1"]
    assert _names(exe.init, "CreateEvent") == ["event0"]


def test_main_allocates_launches_and_frees_each_op(world):
    built = build_tiny_cnn()
    exe = lower_graph(built.ge_model.graph)
    main = exe.main
    kernels = [n.name for n in built.graph.topological_sort()
               if n.type not in ("Data", "Const", "NetOutput", "Send", "Recv", "Reshape")]
    assert _names(main, "LaunchKernelWithHandle") == kernels
    assert main.count("AllocMemory") == len(kernels)          # one output each
    assert main.count("InferShape") == 0                      # static: specs are constants
    # GE-local Reshape (the one ReshapeRecoveryPass put back before the Gemm): a view
    assert _names(main, "RefTensor") == [n.name for n in built.graph if n.type == "Reshape"]
    assert len(_names(main, "RefTensor")) == 1
    assert main.count("FreeMemory") == main.count("AllocMemory") + main.count("CopyH2D")
    assert _names(main, "RecordEvent") == ["tiny_cnn_Send_0"]
    assert _names(main, "WaitEvent") == ["tiny_cnn_Recv_0"]
    assert _types(main)[0] == "CopyH2D"
    synchronize = _types(main).index("Synchronize")
    assert _types(main)[synchronize + 1] == "CopyOutput"
    assert [name for name, _ in exe.inputs] == ["input"]
    assert [name for name, _ in exe.outputs] == list(built.expected)


def test_each_free_follows_every_user_of_its_block(world):
    exe = lower_graph(build_tiny_cnn().ge_model.graph)
    main = exe.main
    position = {n.id: i for i, n in enumerate(main.nodes)}
    for i, node in enumerate(main.nodes):
        if node.type != "FreeMemory":
            continue
        block = node.inputs[1]
        users = [n for n in main.nodes if n is not node and block in n.inputs + n.outputs]
        assert all(position[u.id] < i for u in users), node.name
        assert position[max(node.after, key=position.get)] == i - 1 or \
            main.nodes[i - 1].type == "FreeMemory"   # right after its last user


def test_frees_pick_the_readers_stream_or_wait_for_the_sync(world):
    exe = lower_graph(build_tiny_cnn().ge_model.graph)
    stream_of = {n.name: n.attrs["stream"] for n in exe.main.nodes if n.type == "FreeMemory"}
    assert stream_of["relu1:0"] == 0
    assert stream_of["fc:0"] == 1            # written on stream 0, read only on stream 1
    assert stream_of["softmax:0"] is None    # a graph output: freed after Synchronize


def test_launches_on_one_stream_keep_the_graph_order(world):
    exe = lower_graph(build_tiny_cnn().ge_model.graph)
    issued = [n for n in exe.main.nodes if "stream" in n.attrs and n.type != "AllocMemory"
              and n.type != "FreeMemory"]
    for stream in (0, 1):
        chain = [n for n in issued if n.attrs["stream"] == stream]
        for prev, node in zip(chain, chain[1:]):
            assert prev.id in node.after


def test_deinit_releases_in_reverse(world):
    exe = lower_graph(build_tiny_cnn().ge_model.graph)
    types = _types(exe.deinit)
    assert types[-1] == "ReleaseAllocator"
    assert types.count("FreeWeight") == exe.init.count("SinkWeightData")
    assert {"DestroyStream", "DestroyEvent"} <= set(types)


def _dynamic_batch_graph():
    nodes = [helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("Flatten", ["r"], ["f"], axis=1),
             helper.make_node("Softmax", ["f"], ["y"], axis=1)]
    graph = helper.make_graph(nodes, "dyn",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 6])])
    g = parse_onnx(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]))
    compile_graph(g, CompileOptions(dump=None))
    return g


def test_unknown_dims_get_an_infer_shape_at_run_time(world):
    exe = lower_graph(_dynamic_batch_graph())
    assert _names(exe.main, "InferShape") == ["Relu_0", "Flatten_1", "Softmax_2"]


def test_hybrid_lowering_infers_every_op_on_one_stream(world):
    built = build_tiny_cnn()
    exe = lower_graph(built.ge_model.graph, HYBRID_LOWERING)
    # one InferShape more than launches: the view's
    assert exe.main.count("InferShape") == exe.main.count("LaunchKernelWithHandle") + 1
    assert exe.init.count("CreateStream") == 0
    assert exe.main.count("RecordEvent") == exe.main.count("WaitEvent") == 0


def test_a_graph_whose_control_flow_was_built_into_labels_is_refused_in_one_line(world):
    then_g = helper.make_graph([helper.make_node("Identity", ["x"], ["t"])], "then", [],
                               [helper.make_tensor_value_info("t", TensorProto.FLOAT, [1])])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", TensorProto.FLOAT, [1])])
    node = helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)
    graph = helper.make_graph([node], "cf",
                              [helper.make_tensor_value_info("c", TensorProto.BOOL, []),
                               helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    g = parse_onnx(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]))
    compile_graph(g, CompileOptions(dump=None))
    build_model(g)   # the If's branches inlined between label nodes
    with pytest.raises(LoweringError, match=r"^graph cf: its control flow was built into "
                                            r"label tasks \(If_0_\w+, \.\.\.\)") as err:
        lower_graph(g)
    assert len(str(err.value).splitlines()) == 1


def test_node_kinds(world):
    g = build_tiny_cnn().ge_model.graph
    kinds = {n.name: node_kind(n) for n in g.nodes}
    assert kinds["input"] == "Data" and kinds["fc.w"] == "Const"
    (reshape,) = [n.name for n in g.nodes if n.type == "Reshape"]
    assert kinds[reshape] == "GeLocalView" and kinds["fc"] == "Kernel"
    assert kinds["tiny_cnn_Send_0"] == "Send" and kinds["NetOutput"] == "NetOutput"


def test_a_dump_marks_the_kernels_ge_does_not_register(world):
    """The kernels GE's runtime has no REGISTER_KERNEL for carry "(not GE)" in a dump; GE's own
    (SinkWeightData, LaunchKernelWithHandle, ...) do not. Every entry names a kernel we have."""
    dump = lower_graph(build_tiny_cnn().ge_model.graph).dump()
    kernels = {line.split()[1] for line in dump.splitlines() if line.lstrip().startswith("[")}
    assert {"SinkWeightData", "LaunchKernelWithHandle", "AllocMemory", "FreeMemory"} <= kernels
    assert "] CopyOutput (not GE) " in dump and "] FreeWeight (not GE) " in dump
    assert "] CreateStream (not GE) " in dump and "LaunchKernelWithHandle (not GE)" not in dump
    assert all(get_kernel_func(name) for name in NOT_GE_KERNELS)
