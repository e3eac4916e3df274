"""ModelManager: one per World, model ids, weights shared between models loaded from the same
weights, full release on unload; ModelExecutor's CheckAndReleaseMemory / Stream / Event unloading
the session's other models in graph id order, never one with HCCL tasks, when the device lacks
room (GE's model_executor.cc)."""
import contextvars

import numpy as np

import pytest

from ge_core.atc import atc
from ge_core.compiler import CompileOptions
from ge_core.compiler.model_builder import BuildOptions
from ge_core.model_task_type import ModelTaskType
from ge_core.om.proto.task_pb2 import TaskDef
from ge_core.om.weights import Weights
from ge_core.parser import parse_onnx
from ge_core.runtime.errors import GeError, InvalidModelIdError, ModelLoadError
from ge_core.runtime.v1 import GraphLoader, ModelExecutor, ModelManager
from ge_core.runtime.v1.model_executor import MAX_STREAMS, GraphNode
from npu_emu.driver.events import MemAlloc
from npu_emu.world import World, current_world
from v1_testing import TINY, device_world, events, feeds_for, ge_model, om_of


def test_get_instance_answers_the_current_worlds_manager():
    first, second = World(), World()
    with first.entered():
        assert ModelManager.get_instance() is first.instance(ModelManager)
        with second.entered():
            assert ModelManager.get_instance() is second.instance(ModelManager)
        assert current_world() is first
    assert first.instance(ModelManager) is not second.instance(ModelManager)

    def host_script():   # run directly with python: no world entered, an implicit one is made
        world = current_world()
        assert world.implicit and ModelManager.get_instance() is world.instance(ModelManager)
    contextvars.Context().run(host_script)


def test_model_ids_count_from_one_and_unknown_ids_are_refused():
    m = ge_model()
    with device_world():
        assert [GraphLoader.load_model_online(m) for _ in range(2)] == [1, 2]
        with pytest.raises(InvalidModelIdError, match="no loaded model 7 .loaded: 1, 2"):
            ModelManager.get_instance().get_model(7)


def test_models_from_the_same_weights_share_one_device_copy():
    with device_world() as world:
        a = GraphLoader.load_model_from_data(om_of())
        b = GraphLoader.load_model_from_data(om_of())
        weights = len(ge_model().weights)
        assert [e.size for e in events(world, MemAlloc)].count(weights) == 1
        manager = ModelManager.get_instance()
        assert manager.get_model(a).memory.segment("weight").device_base == \
            manager.get_model(b).memory.segment("weight").device_base
        GraphLoader.unload_model(a)
        assert len(manager.weights) == 1   # b still uses them
        GraphLoader.unload_model(b)
        assert manager.weights == []


def test_two_builds_of_a_model_share_one_device_copy_of_their_weights():
    # each build's weights are its own graph's arrays: equal piece by piece, never joined
    with device_world() as world:
        built = [atc(parse_onnx(TINY), CompileOptions(dump=None), BuildOptions()).built.ge_model
                 for _ in range(2)]
        assert built[0].weights is not built[1].weights
        for model in built:
            GraphLoader.load_model_online(model)
        assert [e.size for e in events(world, MemAlloc)].count(len(built[0].weights)) == 1
        assert len(ModelManager.get_instance().weights) == 1


def test_models_whose_weights_differ_only_in_a_byte_keep_a_copy_each():
    # Shared by equal bytes, not by size: the copies are compared, whatever their length says.
    with device_world() as world:
        first, second = ge_model(), ge_model()
        raw = bytes(second.weights)
        second.weights = Weights.of(raw[:-1] + bytes([raw[-1] ^ 1]))
        a, b = (GraphLoader.load_model_online(m) for m in (first, second))
        assert [e.size for e in events(world, MemAlloc)].count(len(first.weights)) == 2
        manager = ModelManager.get_instance()
        assert manager.get_model(a).memory.segment("weight").device_base != \
            manager.get_model(b).memory.segment("weight").device_base
        assert len(manager.weights) == 2


def test_unload_gives_every_resource_back():
    m = ge_model(stream_max_parallel_num=4)
    with device_world() as world:
        rt = world.runtime
        free, streams = rt.device().memory.free_bytes(), len(rt.context().streams)
        model_id = GraphLoader.load_model_online(m)
        model = ModelManager.get_instance().get_model(model_id)
        model.nn_execute(feeds_for())
        model.model_run_start()
        GraphLoader.unload_model(model_id)
        assert rt.device().memory.free_bytes() == free
        assert len(rt.context().streams) == streams
        assert rt.models == []
        assert all(e.destroyed for e in model.events)
        assert model.run_loop is None
        assert ModelManager.get_instance().model_map == {}


def test_a_bad_om_is_a_load_error_naming_the_check():
    with device_world():
        with pytest.raises(ModelLoadError, match="wrong magic"):
            GraphLoader.load_model_from_data(b"\x00" * 300)


def _leave_free(device, leave: int) -> None:
    """Allocate until about ``leave`` bytes are free (blocks up to 1 MiB: 512-byte granules)."""
    while device.memory.free_bytes() - leave >= 1 << 20:
        device.malloc(1 << 20)
    device.malloc((device.memory.free_bytes() - leave) // 512 * 512)


def _session_with(loaded: int):
    """A ModelExecutor with ``loaded`` tiny_cnn graphs loaded, oldest first."""
    executor = ModelExecutor(session_id=1)
    for graph_id in range(loaded):
        m = ge_model()
        node = executor.graph_nodes[graph_id] = GraphNode(graph_id, m.graph, {}, m)
        executor.load_graph(node)
    return executor


def test_check_and_release_memory_unloads_in_graph_id_order_but_never_hccl_models():
    m = ge_model()
    with device_world(memory_bytes=8 << 20) as world:
        executor = _session_with(3)
        oldest = executor.graph_nodes[0]
        # the oldest holds a collective: it must stay
        executor.model(oldest).ge_model.task_def.task.append(TaskDef(type=ModelTaskType.HCCL))
        _leave_free(world.runtime.device(), m.task_def.memory_size // 2)
        node = executor.graph_nodes[3] = GraphNode(3, m.graph, {}, m)
        executor.load_graph(node)
        assert [n.model_id is not None for n in executor.graph_nodes.values()] == \
            [True, False, True, True]


def test_check_and_release_stops_as_soon_as_the_model_fits():
    m = ge_model()
    with device_world(memory_bytes=8 << 20) as world:
        executor = _session_with(3)
        _leave_free(world.runtime.device(), m.task_def.memory_size // 2)
        node = executor.graph_nodes[3] = GraphNode(3, m.graph, {}, m)
        executor.load_graph(node)
        assert [n.model_id is not None for n in executor.graph_nodes.values()] == \
            [False, True, True, True]


def _loaded(executor) -> list[bool]:
    return [n.model_id is not None for _, n in sorted(executor.graph_nodes.items())]


def _needing(graph_id: int, streams: int = 0, events: int = 0) -> GraphNode:
    """A graph whose model needs ``streams`` streams and ``events`` events."""
    m = ge_model()
    m.task_def.stream_num, m.task_def.event_num = streams, events
    return GraphNode(graph_id, m.graph, {}, m)


def test_check_and_release_stream_unloads_until_the_streams_fit():
    with device_world():
        executor = _session_with(3)
        held = sum(len(executor.model(n).streams) + 1 for n in executor.graph_nodes.values())
        per_model = held // 3
        # room for this one once a single model (and its execution stream) is gone
        node = executor.graph_nodes[3] = _needing(3, MAX_STREAMS - held + per_model - 1)
        executor.check_and_release_stream(node)
        assert _loaded(executor) == [False, True, True, False]


def test_check_and_release_stream_keeps_hccl_models_and_fails_when_nothing_more_can_go():
    with device_world():
        executor = _session_with(2)
        executor.model(executor.graph_nodes[1]).ge_model.task_def.task.append(
            TaskDef(type=ModelTaskType.HCCL))
        node = executor.graph_nodes[2] = _needing(2, MAX_STREAMS - 2)
        with pytest.raises(GeError, match="graph 2: check and release stream failed, "
                                          f"{MAX_STREAMS - 1} streams required"):
            executor.check_and_release_stream(node)
        assert _loaded(executor) == [False, True, False]


def test_check_and_release_event_unloads_until_the_events_fit():
    events_per_model = ge_model(stream_max_parallel_num=4).task_def.event_num
    assert events_per_model > 0
    with device_world(max_events=4 * events_per_model) as world:
        executor = ModelExecutor(session_id=1)
        for graph_id in range(3):
            m = ge_model(stream_max_parallel_num=4)
            executor.graph_nodes[graph_id] = GraphNode(graph_id, m.graph, {}, m)
            executor.load_graph(executor.graph_nodes[graph_id])
        free = world.runtime.config.max_events - 3 * events_per_model
        node = executor.graph_nodes[3] = _needing(3, events=free + events_per_model)
        executor.check_and_release_event(node)
        assert _loaded(executor) == [False, True, True, False]
        node.ge_model.task_def.event_num = 4 * events_per_model + 1
        with pytest.raises(GeError, match="check and release event failed"):
            executor.check_and_release_event(node)
        assert _loaded(executor) == [False, False, False, False]


def test_static_and_hybrid_models_share_one_id_sequence_each_kept_in_its_own_map():
    """Seed 000 §2.3: ModelManager is the process's registry of loaded models; a DavinciModel
    goes to model_map and a HybridDavinciModel to hybrid_model_map, under one id sequence, and
    each is found (and unloaded) by its id alone."""
    from onnx import TensorProto, helper

    from ge_core.compiler import CompileOptions, compile_graph
    from ge_core.parser import parse_onnx
    from ge_core.runtime.hybrid import HybridDavinciModel
    relu = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "dynamic_relu",
                             [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
                             [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])])
    dynamic = parse_onnx(helper.make_model(relu, opset_imports=[helper.make_opsetid("", 17)]))
    compile_graph(dynamic, CompileOptions(dump=None))
    with device_world():
        manager = ModelManager.get_instance()
        static_id = manager.load_model(ge_model())
        hybrid_id = manager.load_model(dynamic)
        again_id = manager.load_model(ge_model())
        assert (static_id, hybrid_id, again_id) == (1, 2, 3)
        assert sorted(manager.model_map) == [static_id, again_id]
        assert list(manager.hybrid_model_map) == [hybrid_id]
        assert isinstance(manager.get_hybrid_model(hybrid_id), HybridDavinciModel)
        assert manager.get_hybrid_model(static_id) is None
        manager.unload(hybrid_id)
        manager.unload(static_id)
        assert list(manager.model_map) == [again_id] and manager.hybrid_model_map == {}


def test_graph_executor_is_a_stateless_facade_over_the_current_worlds_models():
    """Seed 000 §3.5: GraphExecutor keeps nothing of its own; each call is forwarded to the
    model the current world's ModelManager holds under that id, so the same id means another
    model (or none) in another world."""
    from ge_core.runtime.v1.graph_executor import GraphExecutor
    from v1_testing import host_outputs
    feeds = feeds_for()
    assert not [n for n in vars(GraphExecutor) if not n.startswith("__")
                and not isinstance(vars(GraphExecutor)[n], staticmethod)]
    with device_world():
        model_id = GraphLoader.load_model_online(ge_model())
        (prob,) = GraphExecutor.execute_graph(model_id, feeds).values()
        expected = host_outputs(TINY, feeds)
        np.testing.assert_allclose(prob, next(iter(expected.values())), rtol=1e-5, atol=1e-6)
        with device_world():
            with pytest.raises(InvalidModelIdError):
                GraphExecutor.execute_graph(model_id, feeds)
