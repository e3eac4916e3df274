"""GraphManager: the steps every face drives - parse, compile, build, load, execute - with the
static-or-hybrid choice made where GE makes it, in ModelManager's load; outputs checked against
onnxruntime."""
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from ge_core.compiler import CompileOptions
from ge_core.executor import random_feeds
from ge_core.ge_options import GE_OPTIONS, RunMode
from ge_core.om import GeModel
from ge_core.runtime.errors import GeError
from ge_core.runtime.hybrid import HybridDavinciModel
from ge_core.runtime.v1 import DavinciModel, ModelManager
from ge_core.session import GraphManager
from npu_emu.world import World

TINY = str(Path(__file__).resolve().parents[2] / "sample_models" / "tiny_cnn.onnx")


def _dynamic_batch() -> onnx.ModelProto:
    """y = Relu(x @ W) with x's batch dim unknown until it is fed."""
    w = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["m"]), helper.make_node("Relu", ["m"], ["y"])],
        "dynamic_batch", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 3])],
        [numpy_helper.from_array(w, "W")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def _onnxruntime(model: str | onnx.ModelProto, feeds: dict[str, np.ndarray]) -> np.ndarray:
    data = model.SerializeToString() if isinstance(model, onnx.ModelProto) else model
    return ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)[0]


@pytest.fixture
def manager():
    with World().entered():
        yield GraphManager(CompileOptions(dump=None))


def test_a_static_model_is_built_and_loaded_sunk(manager):
    graph = manager.parse(TINY)
    manager.compile(graph)
    root = manager.build_root_model(graph)
    assert isinstance(root, GeModel)
    model = manager.load(root)
    registry = ModelManager.get_instance()
    assert isinstance(model, DavinciModel) and registry.model_map == {model.model_id: model}
    feeds = random_feeds(graph, 3)
    got = manager.execute(model, feeds)["prob"]
    manager.unload(model)
    assert registry.model_map == {}
    np.testing.assert_allclose(got, _onnxruntime(TINY, feeds), rtol=1e-4, atol=1e-6)


def test_a_model_with_unknown_dims_is_not_built_and_loads_hybrid(manager):
    graph = manager.parse(_dynamic_batch())
    manager.compile(graph)
    assert manager.build_root_model(graph) is graph
    model = manager.load(graph)
    registry = ModelManager.get_instance()
    assert isinstance(model, HybridDavinciModel)
    assert registry.hybrid_model_map == {model.model_id: model} and registry.model_map == {}
    for n in (1, 5):
        x = np.random.default_rng(n).standard_normal((n, 4)).astype(np.float32)
        got = manager.execute(model, {"x": x})["y"]
        assert got.shape == (n, 3)
        np.testing.assert_allclose(got, _onnxruntime(_dynamic_batch(), {"x": x}),
                                   rtol=1e-5, atol=1e-6)
    manager.unload(model)
    assert registry.hybrid_model_map == {}


def test_hybrid_can_be_chosen_for_a_built_model(manager):
    graph = manager.parse(TINY)
    manager.compile(graph)
    feeds = random_feeds(graph, 1)
    got = manager.run(manager.build(graph).ge_model, feeds, RunMode.HYBRID)["prob"]
    np.testing.assert_allclose(got, _onnxruntime(TINY, feeds), rtol=1e-4, atol=1e-6)
    assert ModelManager.get_instance().hybrid_model_map == {}


def test_a_static_graph_not_built_is_refused_in_one_line(manager):
    graph = manager.parse(TINY)
    manager.compile(graph)
    with pytest.raises(GeError, match=f"graph {graph.name} is not built"):
        manager.load(graph)


@pytest.mark.parametrize("asked, built, runs", [
    (RunMode.AUTO, True, RunMode.SINK), (RunMode.SINK, True, RunMode.SINK),
    (RunMode.HYBRID, False, RunMode.HYBRID), (RunMode.V2, True, RunMode.V2)])
def test_the_manager_plans_the_mode_of_a_static_model(manager, asked, built, runs):
    graph = manager.parse(TINY)
    manager.compile(graph)
    plan = manager.prepare(graph, asked)
    assert isinstance(plan.root, GeModel) is built and plan.mode is runs and plan.why is None
    feeds = random_feeds(graph, 2)
    np.testing.assert_allclose(manager.run(plan.root, feeds, plan.mode)["prob"],
                               _onnxruntime(TINY, feeds), rtol=1e-4, atol=1e-6)


def test_auto_says_why_a_model_with_unknown_dims_runs_hybrid(manager):
    graph = manager.parse(_dynamic_batch())
    manager.compile(graph)
    plan = manager.prepare(graph)
    assert plan.root is graph and plan.mode is RunMode.HYBRID
    assert plan.why == ("mode auto loads it hybrid, not sunk: node x (Data) output 0 has dims "
                        "known only at run time")
    assert manager.build_for(graph, RunMode.V2) is None   # v2 lowers it unbuilt


def test_every_ge_option_in_the_map_reaches_the_managers_options():
    """Each row's key, given a value other than its default, changes what the manager holds."""
    values = {"exclude-engines": "AiCoreEngine", "input-shape": "x:2,4",
              "dynamic-batch-size": "1,2", "dynamic-image-size": "8,8;16,16",
              "dynamic-dims": "1;2", "stream-max-parallel-num": "3", "max-task-count": "100",
              "exec-timeout": "7", "soc-version": "Ascend950",
              "memory-optimization-policy": "MemoryPriority"}
    default = GraphManager.from_ge_options({})
    for option in GE_OPTIONS:
        value = option.to_ge(True) if option.type is bool else values[option.name]
        given = GraphManager.from_ge_options({option.key: value})
        assert (given.compile_options, given.build_options, given.exec_timeout_ms) != \
            (default.compile_options, default.build_options, default.exec_timeout_ms), option.key
        assert option.from_ge(value) == (True if option.type is bool else option.parse(value))
