"""GE's Session on the emulated device: graphs added, compiled without loading, loaded on their
first run; synchronous runs (NnExecute), asynchronous ones (the Run loop), runs on the caller's
stream; forks; memory the user provides; finalize releasing everything."""
from pathlib import Path

import numpy as np
import pytest

from ge_core.executor import HostExecutor, random_feeds
from ge_core.parser import parse_onnx
from ge_core.runtime.errors import GeError, ModelInputError
from ge_core.runtime.model_io import DeviceBuffer
from ge_core.runtime.v1 import ModelManager
from ge_core.session import Session
from npu_emu.world import World

TINY = str(Path(__file__).resolve().parents[2] / "sample_models" / "tiny_cnn.onnx")


def _feeds(seed: int = 0) -> dict[str, np.ndarray]:
    return random_feeds(parse_onnx(TINY), seed)


def _expected(feeds: dict[str, np.ndarray]) -> np.ndarray:
    (prob,) = HostExecutor(parse_onnx(TINY)).run(feeds).values()
    return prob


def _close(a, b) -> None:
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.fixture
def world():
    world = World()
    with world.entered():
        yield world


@pytest.fixture
def session(world):
    s = Session()
    s.add_graph(1, TINY)
    yield s
    s.finalize()


def test_compile_graph_builds_without_loading_and_summarises(session):
    summary = session.compile_graph(1)
    assert ModelManager.get_instance().model_map == {}
    assert summary.feature_memory_size == 14848 and summary.const_memory_size == 5672
    assert [io.name for io in summary.inputs] == ["input"]
    assert [(io.name, io.dims) for io in summary.outputs] == [("prob", (1, 10))]


def test_run_graph_loads_on_first_run_and_matches_the_host(session):
    feeds = _feeds()
    (prob,) = session.run_graph(1, feeds)
    _close(prob, _expected(feeds))
    (model_id,) = ModelManager.get_instance().model_map
    session.run_graph(1, [feeds["input"]])
    assert list(ModelManager.get_instance().model_map) == [model_id]   # loaded once


def test_build_graph_checks_the_input_shapes(session):
    with pytest.raises(ModelInputError, match=r"given shape \[2, 3, 16, 16\]"):
        session.build_graph(1, [np.zeros((2, 3, 16, 16), np.float32)])
    session.build_graph(1, [np.zeros((1, 3, 16, 16), np.float32)])


def test_run_graph_async_queues_and_the_run_loop_runs_on_wait(session):
    results = []
    feeds = [_feeds(seed) for seed in range(3)]
    for f in feeds:
        session.run_graph_async(1, f, lambda status, out: results.append((status, out["prob"])))
    assert results == []
    session.wait()
    assert [status for status, _ in results] == [0, 0, 0]
    for (_, prob), f in zip(results, feeds):
        _close(prob, _expected(f))


def test_a_synchronous_run_lets_queued_async_runs_go_first(session):
    order = []
    session.run_graph_async(1, _feeds(1), lambda status, out: order.append("async"))
    session.run_graph(1, _feeds(2))
    order.append("sync")
    assert order == ["async", "sync"]


def test_run_graph_with_stream_writes_the_callers_buffers(world, session):
    rt = world.runtime
    feeds = _feeds()
    x = feeds["input"]
    stream = rt.create_stream()
    dx, dy = rt.malloc(x.nbytes), rt.malloc(40)
    rt.device().memory.write(dx, x)
    session.run_graph_with_stream(1, stream, [DeviceBuffer(dx, x.nbytes)], [DeviceBuffer(dy, 40)])
    assert stream.synchronize() == 0
    _close(rt.device().memory.view(dy, (1, 10), np.float32), _expected(feeds))


def test_fork_graph_shares_the_compiled_model_and_loads_on_its_own(session):
    session.fork_graph(1, 2)
    nodes = session.executor.graph_nodes
    assert nodes[2].ge_model is nodes[1].ge_model
    feeds = _feeds()
    (a,), (b,) = session.run_graph(1, feeds), session.run_graph(2, feeds)
    assert nodes[1].model_id != nodes[2].model_id
    np.testing.assert_array_equal(a, b)
    manager = ModelManager.get_instance()
    assert len(manager.weights) == 1   # the fork's weights are the original's


def test_memory_the_user_provides_is_used(world, session):
    rt = world.runtime
    summary = session.compile_graph(1)
    const = rt.malloc(summary.const_memory_size)
    fm = rt.malloc(summary.feature_memory_size)
    session.set_graph_const_memory_base(1, const, summary.const_memory_size)
    session.update_graph_feature_memory_base(1, fm, summary.feature_memory_size)
    feeds = _feeds()
    (prob,) = session.run_graph(1, feeds)
    _close(prob, _expected(feeds))
    model = session.executor.model(session.executor.graph_nodes[1])
    assert model.memory.segment("weight").device_base == const
    assert model.memory.segment("feature_map").device_base == fm
    assert model.task_infos[0].task.outputs[0].addr == fm   # relu1 writes at offset 0
    moved = rt.malloc(summary.feature_memory_size)
    session.update_graph_feature_memory_base(1, moved, summary.feature_memory_size)
    assert model.task_infos[0].task.outputs[0].addr == moved
    (again,) = session.run_graph(1, feeds)
    _close(again, prob)
    with pytest.raises(GeError, match="needs 14848"):
        session.update_graph_feature_memory_base(1, moved, 100)


def test_options_reach_the_build(world):
    session = Session({"ge.enableSingleStream": "true"})
    session.add_graph(1, TINY)
    assert session.compile_graph(1).stream_num == 1
    session.finalize()


def test_finalize_unloads_and_forgets_the_session(world):
    session = Session()
    session.add_graph(1, TINY)
    session.run_graph(1, _feeds())
    manager = ModelManager.get_instance()
    assert session.session_id in manager.sess_id_to_device_ids
    free = world.runtime.device().memory.free_bytes()
    session.finalize()
    assert manager.model_map == {}
    assert session.session_id not in manager.sess_id_to_device_ids
    assert world.runtime.device().memory.free_bytes() > free


def test_unknown_graphs_are_named(session):
    with pytest.raises(GeError, match=r"graph 9 was never added \(graphs: 1\)"):
        session.run_graph(9, _feeds())
    with pytest.raises(GeError, match="already added"):
        session.add_graph(1, TINY)
