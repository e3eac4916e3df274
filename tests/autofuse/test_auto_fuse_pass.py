"""GE's automatic fusion (AutoFusePass): pointwise chains become one AscBackend node whose kernel
runs the recorded steps; only when AUTOFUSE_FLAGS (or --autofuse) enables it. The fused graph
must compute what onnxruntime computes on the unfused model, on the host and sunk."""
import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto as T, helper, numpy_helper

from ge_core.atc import atc
from ge_core.autofuse import AutoFusePass, autofuse_enabled
from ge_core.compiler import CompileOptions, compile_graph
from ge_core.compiler.model_builder import BuildOptions
from ge_core.executor import HostExecutor
from ge_core.graph import dump_graph, validate
from ge_core.om import load_om_bytes, om_bytes
from ge_core.ops import infer_graph
from ge_core.parser import parse_onnx
from ge_core.passes import PassManager
from ge_core.runtime.v1 import GraphLoader, ModelManager
from npu_emu.world import World

X = np.random.default_rng(3).standard_normal((4, 3)).astype(np.float32)


def _model(nodes, outputs, inits, x_type=T.FLOAT, opset=17, x_shape=(4, 3)):
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", x_type, list(x_shape))],
        [helper.make_tensor_value_info(name, x_type, shape) for name, shape in outputs],
        [numpy_helper.from_array(v, k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def chain_model():
    """y = sigmoid(relu(x + b) * c)."""
    return _model([helper.make_node("Add", ["x", "b"], ["a"]),
                   helper.make_node("Relu", ["a"], ["r"]),
                   helper.make_node("Mul", ["r", "c"], ["m"]),
                   helper.make_node("Sigmoid", ["m"], ["y"])],
                  [("y", [4, 3])], {"b": np.array([0.5, -1, 2], np.float32),
                                    "c": np.array(1.5, np.float32)})


def diamond_model():
    """y = relu(x + b) * matmul(x + b, w): the MatMul between must stay outside the group."""
    return _model([helper.make_node("Add", ["x", "b"], ["a"]),
                   helper.make_node("Relu", ["a"], ["r"]),
                   helper.make_node("MatMul", ["a", "w"], ["m"]),
                   helper.make_node("Mul", ["r", "m"], ["y"])],
                  [("y", [4, 3])], {"b": np.array([0.5, -1, 2], np.float32),
                                    "w": np.eye(3, dtype=np.float32)[::-1].copy()})


def _fused(proto):
    graph = parse_onnx(proto)
    infer_graph(graph)
    fuse = AutoFusePass()
    PassManager("OptimizeOriginalGraph").add_pass(fuse.name, fuse).run(graph)
    validate(graph)
    return graph


def _onnxruntime(proto, feeds):
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def test_a_chain_becomes_one_asc_backend_node():
    assert dump_graph(_fused(chain_model())) == """\
graph g (5 nodes)
  %x : Data() -> f32[4,3] => [%autofuse_0_Add_Relu_Mul_Sigmoid:0] {index=0}
  %b : Const() -> f32[3] => [%autofuse_0_Add_Relu_Mul_Sigmoid:1] {value=<f32[3] [ 0.5,-1. , 2. ]>}
  %c : Const() -> f32[] => [%autofuse_0_Add_Relu_Mul_Sigmoid:2] {value=<f32[] [1.5]>}
  %autofuse_0_Add_Relu_Mul_Sigmoid : AscBackend(%x:0, %b:0, %c:0) -> f32[4,3] => [%NetOutput:0] \
{_datadump_original_op_names=['Add_0','Relu_1','Mul_2','Sigmoid_3'], \
asc_graph=['t0=Add(x0,x1)','t1=Relu(t0)','t2=Mul(t1,x2)','t3=Sigmoid(t2)'], asc_opset=17, \
asc_outputs=['t3']}
  %NetOutput : NetOutput(%autofuse_0_Add_Relu_Mul_Sigmoid:0) -> ()
"""
    graph = _fused(chain_model())
    np.testing.assert_allclose(HostExecutor(graph).run({"x": X})["y"],
                               _onnxruntime(chain_model(), {"x": X})[0], rtol=1e-6)


def test_a_group_never_closes_a_cycle():
    # Mul reads Relu (in the group) and MatMul, which reads the group's Add: fusing Mul would
    # make the group wait for the MatMul that waits for it. Add and Relu fuse, Mul stays, and
    # the group hands out both a (to the MatMul) and r (to the Mul).
    graph = _fused(diamond_model())
    fused = [n for n in graph if n.type == "AscBackend"]
    assert [n.name for n in fused] == ["autofuse_0_Add_Relu"]
    assert fused[0].op_desc.get_attr("asc_outputs") == ["t0", "t1"]
    assert sorted(n.type for n in graph if n.type not in ("Const", "Data", "NetOutput")) == \
        ["AscBackend", "MatMul", "Mul"]
    np.testing.assert_allclose(HostExecutor(graph).run({"x": X})["y"],
                               _onnxruntime(diamond_model(), {"x": X})[0], rtol=1e-6)


def box_decoding_model():
    """YOLOv8's dist2bbox, the smallest graph of it that made a cycle: lt, rb = split(x);
    x1y1 = anchor - lt; x2y2 = anchor + rb; y = cat((x1y1 + x2y2) / 2, x2y2 - x1y1)."""
    return _model([helper.make_node("Split", ["x"], ["lt", "rb"], axis=1, num_outputs=2),
                   helper.make_node("Sub", ["anchor", "lt"], ["x1y1"]),
                   helper.make_node("Add", ["anchor", "rb"], ["x2y2"]),
                   helper.make_node("Add", ["x1y1", "x2y2"], ["s"]),
                   helper.make_node("Div", ["s", "two"], ["c_xy"]),
                   helper.make_node("Sub", ["x2y2", "x1y1"], ["wh"]),
                   helper.make_node("Concat", ["c_xy", "wh"], ["y"], axis=1)],
                  [("y", [4, 4])], {"anchor": np.arange(8, dtype=np.float32).reshape(4, 2),
                                    "two": np.array(2, np.float32)}, opset=18, x_shape=[4, 4])


def test_two_groups_that_would_feed_each_other_are_not_both_made():
    # Joining each op to its first producer's group made {x1y1, +, /2} and {x2y2, -}, each
    # reading the other: fused, neither could start (the issue's "cycle through node
    # autofuse_57_Sub_Add_Div"). The detector, run on the fused graph, sends x2y2 - x1y1 to
    # x1y1's group instead, and the lone x2y2 stays as it was.
    proto = box_decoding_model()
    graph = _fused(proto)
    graph.topological_sort()   # raises on a cycle
    assert [n.name for n in graph if n.type == "AscBackend"] == ["autofuse_0_Sub_Add_Div_Sub"]
    x = np.random.default_rng(4).standard_normal((4, 4)).astype(np.float32)
    np.testing.assert_allclose(HostExecutor(graph).run({"x": x})["y"],
                               _onnxruntime(proto, {"x": x})[0], rtol=1e-6)


def test_lone_pointwise_ops_and_integer_chains_stay():
    lone = _model([helper.make_node("Relu", ["x"], ["y"])], [("y", [4, 3])], {})
    ints = _model([helper.make_node("Add", ["x", "x"], ["a"]),
                   helper.make_node("Mul", ["a", "a"], ["y"])], [("y", [4, 3])], {}, T.INT32)
    for proto in (lone, ints):
        graph = _fused(proto)
        assert not [n for n in graph if n.type == "AscBackend"]


@pytest.mark.parametrize("flags, enabled", [
    ("--enable_autofuse=true", True),
    ("--enable_autofuse=true;--autofuse_enable_pass=reduce", True),
    ("--enable_autofuse=false", False), ("", False), ("--autofuse_enable_pass=concat", False)])
def test_autofuse_flags_follow_ge(flags, enabled):
    assert autofuse_enabled(flags) is enabled


def test_the_pipeline_runs_autofuse_after_the_pattern_fusions_only_when_enabled():
    off = compile_graph(parse_onnx(chain_model()), CompileOptions(dump=None, autofuse=False))
    assert "AutoFusePass" not in [r.name for r in off.passes]
    on = compile_graph(parse_onnx(chain_model()), CompileOptions(
        dump=None, autofuse=True, check_equivalence=True))
    names = [r.name for r in on.passes if r.stage == "OptimizeOriginalGraph"]
    assert names.index("AutoFusePass") > names.index("MatMulAddFusionPass")
    record = next(r for r in on.passes if r.name == "AutoFusePass")
    assert record.changed and dict(record.type_delta)["AscBackend"] == 1
    assert on.equivalence.checks > 0 and on.equivalence.first is None


def _sunk(proto, autofuse):
    built = atc(parse_onnx(proto), CompileOptions(dump=None, autofuse=autofuse), BuildOptions())
    ge_model = load_om_bytes(om_bytes(built.built.ge_model))
    world = World()
    with world.entered():
        world.runtime.set_device(0)
        try:
            model = ModelManager.get_instance().get_model(GraphLoader.load_model_online(ge_model))
            return ge_model, model.nn_execute({"x": X}), model.last_execute_ns
        finally:
            world.runtime.close()


@pytest.mark.parametrize("proto", [chain_model(), diamond_model()], ids=["chain", "diamond"])
def test_sunk_the_fused_kernel_gives_onnxruntimes_numbers_in_fewer_tasks(proto):
    fused, out, fused_ns = _sunk(proto, True)
    plain, _, plain_ns = _sunk(proto, False)
    np.testing.assert_allclose(out["y"], _onnxruntime(proto, {"x": X})[0], rtol=1e-6)
    kernels = [t.kernel.kernel_name for t in fused.task_def.task if t.HasField("kernel")]
    assert "AscBackend" in kernels
    assert len(fused.task_def.task) < len(plain.task_def.task)
    assert fused_ns < plain_ns   # one launch, no intermediate tensors moved
