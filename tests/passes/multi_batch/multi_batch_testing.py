"""Small models with dynamic dims, built with onnx.helper, and one helper that compiles a model
with gear options (through OM bytes, as a file would load), runs it sunk on a fresh emulated
device with the trace recorded, and gives the outputs beside onnxruntime's."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as T, helper, numpy_helper

from ge_core.atc import atc
from ge_core.compiler import CompileOptions
from ge_core.compiler.model_builder import BuildOptions
from ge_core.om import load_om_bytes, om_bytes
from ge_core.om.ge_model import GeModel
from ge_core.parser import parse_onnx
from ge_core.passes.multi_batch import MultiBatchOptions
from ge_core.runtime.v1 import DavinciModel, GraphLoader, ModelManager
from npu_emu.base.trace import TraceEvent
from npu_emu.world import World

Outputs = dict[str, np.ndarray]


def _weights(*dims: int) -> np.ndarray:
    """The same weights every time a model is built: compiled and reference copies agree."""
    return np.random.default_rng(7).random(dims).astype(np.float32)


def _model(nodes: list, inputs: list, outputs: list, inits: dict) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs,
                              [numpy_helper.from_array(v, k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def vi(name: str, shape: list) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, T.FLOAT, shape)


def relu_add_model() -> onnx.ModelProto:
    """y = relu(x) + b, x:[N,3]."""
    return _model([helper.make_node("Relu", ["x"], ["r"]),
                   helper.make_node("Add", ["r", "b"], ["y"])],
                  [vi("x", ["N", 3])], [vi("y", ["N", 3])],
                  {"b": np.array([1, 2, 3], np.float32)})


def conv_model() -> onnx.ModelProto:
    """y = reshape(relu(conv(x, w)) + b, [N, -1]); x:[N,3,H,W], dims symbolic."""
    return _model([helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
                   helper.make_node("Relu", ["c"], ["r"]),
                   helper.make_node("Add", ["r", "b"], ["a"]),
                   helper.make_node("Reshape", ["a", "shape"], ["y"])],
                  [vi("x", ["N", 3, "H", "W"])], [vi("y", ["N", "K"])],
                  {"w": _weights(4, 3, 3, 3),
                   "b": np.arange(4, dtype=np.float32).reshape(1, 4, 1, 1),
                   "shape": np.array([0, -1], np.int64)})


def two_input_model() -> onnx.ModelProto:
    """y = matmul(x, w) + z, x:[M,8], z:[M,4]: --dynamic_dims gears M for each."""
    return _model([helper.make_node("MatMul", ["x", "w"], ["m"]),
                   helper.make_node("Add", ["m", "z"], ["y"])],
                  [vi("x", ["M", 8]), vi("z", ["M2", 4])], [vi("y", ["M", 4])],
                  {"w": _weights(8, 4)})


def compile_gears(proto: onnx.ModelProto, switchn: bool = False, **options: str) -> GeModel:
    built = atc(parse_onnx(proto), CompileOptions(dump=None,
                                                  multi_batch=MultiBatchOptions(**options)),
                BuildOptions(multi_batch_with_switchn=switchn))
    return load_om_bytes(om_bytes(built.built.ge_model))


@dataclass
class Run:
    device: Outputs
    onnxruntime: Outputs
    gear: int
    events: list[TraceEvent]
    model_streams: list[int]    # the runtime stream id of each of the model's streams


def run_sunk(proto: onnx.ModelProto, ge_model: GeModel, feeds: Outputs) -> Run:
    world = World()
    events: list[TraceEvent] = []
    world.bus.subscribe(events.append)
    with world.entered():
        world.runtime.set_device(0)
        try:
            model: DavinciModel = ModelManager.get_instance().get_model(
                GraphLoader.load_model_online(ge_model))
            start = len(events)
            device = model.nn_execute(feeds)
            run = Run(dict(device), {}, model.io.gear, events[start:],
                      [s.id for s in model.streams])
        finally:
            world.runtime.close()
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in proto.graph.output]
    inputs = {i.name: feeds[i.name] for i in proto.graph.input}
    run.onnxruntime = dict(zip(names, session.run(names, inputs)))
    return run


def assert_agree(run: Run) -> None:
    assert list(run.device) == list(run.onnxruntime)
    for name, expected in run.onnxruntime.items():
        assert run.device[name].shape == expected.shape, name
        np.testing.assert_allclose(run.device[name], expected, rtol=1e-5, atol=1e-6)
