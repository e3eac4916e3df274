"""Nodes of the host CPU engine (strings, sequences) in a model that also runs device kernels:
where the placer puts each node and why, the hybrid load GE's choice makes of it, the copies
lowering inserts where host and device values meet, the numbers against onnxruntime, and the
one-line refusal of a static build."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.ops.host_cpu_ops import HOST_CPU_ENGINE
from ge_core.compiler.model_builder import BuildError, build_model
from ge_core.ge_options import RunMode
from ge_core.parser import parse_onnx
from ge_core.runtime.errors import ModelInputError
from ge_core.runtime.hybrid import HYBRID_LOWERING
from ge_core.runtime.model_io import model_inputs
from ge_core.runtime.v1 import ModelManager
from ge_core.session import GraphManager
from ge_core.runtime.v2 import lower_graph
from npu_emu.world import World

X = np.array([[1.5, -2.0, 0.25], [3.0, 0.5, -1.0]], np.float32)


def strings_model() -> onnx.ModelProto:
    # Relu (device) -> Cast to string -> (StringConcat -> output; Cast back -> Add (device)).
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("Cast", ["r"], ["s"], to=TensorProto.STRING, name="to_text"),
             helper.make_node("StringConcat", ["s", "bang"], ["text"], name="concat"),
             helper.make_node("Cast", ["s"], ["back"], to=TensorProto.FLOAT, name="to_float"),
             helper.make_node("Add", ["back", "x"], ["y"], name="add")]
    graph = helper.make_graph(
        nodes, "strings", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("text", TensorProto.STRING, [2, 3])],
        [helper.make_tensor("bang", TensorProto.STRING, [], [b"!"])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def compiled(model: onnx.ModelProto):
    graph = parse_onnx(model)
    result = compile_graph(graph, CompileOptions(dump=None))
    return graph, result


def test_string_nodes_run_on_the_host_cpu_engine_each_with_its_reason():
    graph, result = compiled(strings_model())
    engines = {n.name: n.op_desc.get_attr("engine") for n in graph}
    assert engines["relu"] == "AIcoreEngine" and engines["add"] == "VectorEngine"
    assert {engines[n] for n in ("to_text", "concat", "to_float")} == {HOST_CPU_ENGINE}
    notes = [w for w in result.warnings if HOST_CPU_ENGINE in w]
    assert len(notes) == 3
    assert "node concat (StringConcat) runs on DNN_VM_HOST_CPU: a string op" in notes[1]
    assert "string value, which only host memory holds" in notes[0]


def test_the_model_loads_hybrid_and_its_static_build_is_refused_in_one_line():
    graph, _ = compiled(strings_model())
    assert ModelManager.is_need_hybrid_load(graph)
    with pytest.raises(BuildError) as refused:
        build_model(graph)
    message = str(refused.value)
    assert "\n" not in message and "node to_text (Cast) runs on the host CPU engine" in message


def test_lowering_copies_where_host_and_device_values_meet():
    graph, _ = compiled(strings_model())
    main = lower_graph(graph, HYBRID_LOWERING).main
    kinds = [(n.type, n.name) for n in main.nodes
             if n.type in ("HostCpuKernel", "CopyD2H", "MakeSureTensorAtDevice")]
    # relu's result goes back to the host once; to_float's comes to the device for add.
    assert kinds[0] == ("CopyD2H", "relu:0")
    assert kinds[-1] == ("MakeSureTensorAtDevice", "to_float:0")
    assert sorted(kinds[1:-1]) == [("HostCpuKernel", "concat"), ("HostCpuKernel", "to_float"),
                                   ("HostCpuKernel", "to_text")]


def test_hybrid_run_gives_onnxruntimes_outputs():
    model = strings_model()
    want = ort.InferenceSession(model.SerializeToString(),
                                providers=["CPUExecutionProvider"]).run(None, {"x": X})
    graph, _ = compiled(model)
    with World().entered():
        got = GraphManager().run(graph, {"x": X}, mode=RunMode.HYBRID)
    np.testing.assert_allclose(got["y"], want[0], rtol=1e-6)
    assert got["text"].tolist() == want[1].tolist()


def test_a_sequence_round_trip_through_host_and_device():
    # SplitToSequence (host) -> SequenceAt (host) -> Mul (device) -> output.
    nodes = [helper.make_node("SplitToSequence", ["x"], ["parts"], axis=0, keepdims=0),
             helper.make_node("SequenceAt", ["parts", "one"], ["row"]),
             helper.make_node("Mul", ["row", "row"], ["y"], name="square")]
    graph = helper.make_graph(nodes, "seq", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [2, 3])], [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, [3])], [helper.make_tensor("one", TensorProto.INT64, [], [1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    compiled_graph, _ = compiled(model)
    assert compiled_graph.find_node("square").op_desc.get_attr("engine") == "VectorEngine"
    with World().entered():
        got = GraphManager().run(compiled_graph, {"x": X}, mode=RunMode.HYBRID)["y"]
    np.testing.assert_array_equal(got, X[1] * X[1])


STRNORM = Path(onnx.__file__).parent / "backend" / "test" / "data" / "simple" / \
    "test_strnorm_model_monday_casesensintive_upper"


def _suite_tensor(path: Path) -> np.ndarray:
    return numpy_helper.to_array(onnx.load_tensor(str(path)))


def test_a_string_input_is_described_and_fed_as_host_strings():
    """A string input has no device bytes: its desc says objects and reserves nothing, and the
    suite's own strings give the suite's output."""
    graph, _ = compiled(onnx.load(str(STRNORM / "model.onnx")))
    (x,) = model_inputs(graph)
    assert (x.name, x.dtype, x.reserved) == ("x", np.dtype(object), 0)
    data = STRNORM / "test_data_set_0"
    with World().entered():
        got = GraphManager().run(graph, {"x": _suite_tensor(data / "input_0.pb")},
                                 mode=RunMode.HYBRID)
    assert got["y"].tolist() == _suite_tensor(data / "output_0.pb").tolist()


@pytest.mark.parametrize("feed, said", [(np.float32(1), "float32 values"),
                                        (np.ones(4, object), "object values")])
def test_numbers_fed_for_a_string_input_are_refused_in_one_line(feed, said):
    graph, _ = compiled(onnx.load(str(STRNORM / "model.onnx")))
    with World().entered(), pytest.raises(ModelInputError) as refused:
        GraphManager().run(graph, {"x": feed}, mode=RunMode.HYBRID)
    assert str(refused.value) == f"input x: {said}, the model takes strings"
