"""Small If/Loop models built with onnx.helper, and one helper that compiles a model, sinks it on
a fresh emulated device and returns the device's outputs beside the host executor's and
onnxruntime's."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as T, helper

from ge_core.atc import atc
from ge_core.compiler import CompileOptions
from ge_core.compiler.model_builder import BuildOptions
from ge_core.executor import HostExecutor
from ge_core.om import load_om_bytes, om_bytes
from ge_core.om.ge_model import GeModel
from ge_core.parser import parse_onnx
from ge_core.runtime.v1 import GraphLoader, ModelManager
from npu_emu.runtime import RuntimeConfig
from npu_emu.world import World

Outputs = dict[str, np.ndarray]


def vi(name: str, shape: list[int] | None, elem: int = T.FLOAT) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes: list, inputs: list, outputs: list) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def if_model() -> onnx.ModelProto:
    """z = -(c ? relu(x) + relu(x) : relu(x) * w); the branches capture relu(x) and w."""
    then_g = helper.make_graph([helper.make_node("Add", ["x", "x"], ["t"])], "then", [],
                               [vi("t", [2, 3])])
    else_g = helper.make_graph([helper.make_node("Mul", ["x", "w"], ["e"])], "else", [],
                               [vi("e", [2, 3])])
    return model([helper.make_node("Relu", ["x0"], ["x"]),
                  helper.make_node("If", ["c"], ["y"], name="if0", then_branch=then_g,
                                   else_branch=else_g),
                  helper.make_node("Neg", ["y"], ["z"])],
                 [vi("x0", [2, 3]), vi("c", [], T.BOOL), vi("w", [2, 3])], [vi("z", [2, 3])])


def _body(nodes: list, cond_out: str, carried: list[tuple[str, str]]) -> onnx.GraphProto:
    """A Loop body: (i, cond_in, *v_in) -> (cond_out, *v_out)."""
    return helper.make_graph(
        nodes, "body",
        [vi("i", [], T.INT64), vi("cond_in", [], T.BOOL), *(vi(a, [2, 3]) for a, _ in carried)],
        [vi(cond_out, [], T.BOOL), *(vi(b, [2, 3]) for _, b in carried)])


def loop_trip_model() -> onnx.ModelProto:
    """M iterations of acc = acc + x, and a second carried value that swaps with the first
    each iteration (a body returning one carried input as another)."""
    body = _body([helper.make_node("Identity", ["cond_in"], ["cond_out"]),
                  helper.make_node("Add", ["a_in", "x"], ["a_out"]),
                  helper.make_node("Identity", ["a_in"], ["b_out"])],
                 "cond_out", [("a_in", "a_out"), ("b_in", "b_out")])
    return model([helper.make_node("Loop", ["M", "", "a0", "b0"], ["a", "b"], name="loop0",
                                   body=body)],
                 [vi("M", [], T.INT64), vi("a0", [2, 3]), vi("b0", [2, 3]), vi("x", [2, 3])],
                 [vi("a", [2, 3]), vi("b", [2, 3])])


def loop_cond_model() -> onnx.ModelProto:
    """No trip count: double acc while its sum stays under a limit (cond from the body)."""
    body = _body([helper.make_node("Add", ["acc_in", "acc_in"], ["acc_out"]),
                  helper.make_node("ReduceSum", ["acc_out"], ["s"], keepdims=0),
                  helper.make_node("Less", ["s", "limit"], ["go"])],
                 "go", [("acc_in", "acc_out")])
    return model([helper.make_node("Loop", ["", "c0", "acc0"], ["acc"], name="loop0",
                                   body=body)],
                 [vi("c0", [], T.BOOL), vi("acc0", [2, 3]), vi("limit", [])],
                 [vi("acc", [2, 3])])


def if_in_loop_model() -> onnx.ModelProto:
    """-(loop over relu(acc0)): M iterations, each adding x while the counter is even and
    subtracting it when odd; x is captured through two levels of body."""
    then_g = helper.make_graph([helper.make_node("Add", ["acc_in", "x"], ["t"])], "then", [],
                               [vi("t", [2, 3])])
    else_g = helper.make_graph([helper.make_node("Sub", ["acc_in", "x"], ["e"])], "else", [],
                               [vi("e", [2, 3])])
    two = helper.make_tensor("two", T.INT64, [], [2])
    zero = helper.make_tensor("zero", T.INT64, [], [0])
    body = _body([helper.make_node("Identity", ["cond_in"], ["cond_out"]),
                  helper.make_node("Constant", [], ["two"], value=two),
                  helper.make_node("Constant", [], ["zero"], value=zero),
                  helper.make_node("Mod", ["i", "two"], ["r"]),
                  helper.make_node("Equal", ["r", "zero"], ["even"]),
                  helper.make_node("If", ["even"], ["acc_out"], name="if0",
                                   then_branch=then_g, else_branch=else_g)],
                 "cond_out", [("acc_in", "acc_out")])
    return model([helper.make_node("Relu", ["acc0"], ["acc_r"]),
                  helper.make_node("Loop", ["M", "", "acc_r"], ["acc"], name="loop0", body=body),
                  helper.make_node("Neg", ["acc"], ["out"])],
                 [vi("M", [], T.INT64), vi("acc0", [2, 3]), vi("x", [2, 3])],
                 [vi("out", [2, 3])])


def compile_model(proto: onnx.ModelProto) -> GeModel:
    """atc, then through OM bytes, as a model file would be loaded."""
    built = atc(parse_onnx(proto), CompileOptions(dump=None), BuildOptions())
    return load_om_bytes(om_bytes(built.built.ge_model))


@dataclass
class Runs:
    device: Outputs
    host: Outputs
    onnxruntime: Outputs


def run_everywhere(proto: onnx.ModelProto, feeds: Outputs, ge_model: GeModel | None = None
                   ) -> Runs:
    ge_model = ge_model or compile_model(proto)
    world = World(RuntimeConfig())
    with world.entered():
        world.runtime.set_device(0)
        try:
            manager = ModelManager.get_instance()
            device = manager.get_model(GraphLoader.load_model_online(ge_model)).nn_execute(feeds)
        finally:
            world.runtime.close()
    host = HostExecutor(parse_onnx(proto)).run(feeds)
    session = ort.InferenceSession(proto.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    names = [o.name for o in proto.graph.output]
    reference = dict(zip(names, session.run(names, feeds)))
    return Runs(dict(device), dict(host), reference)


def assert_agree(runs: Runs) -> None:
    assert list(runs.device) == list(runs.host) == list(runs.onnxruntime)
    for name, expected in runs.onnxruntime.items():
        np.testing.assert_allclose(runs.host[name], expected, rtol=1e-6)
        np.testing.assert_allclose(runs.device[name], expected, rtol=1e-6)
