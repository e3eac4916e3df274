"""ModelV2Executor's three phases on the emulated device: sequential and topological executors
give identical outputs, equal to the host executor's; resources come and go with load and
unload; StreamExecutor keeps one executor per stream."""
from __future__ import annotations

import numpy as np
import pytest
from v2_testing import TINY_CNN, assert_outputs_close, build_tiny_cnn, world  # noqa: F401

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.compiler.model_builder import BuildOptions
from ge_core.compiler.stream.stream_options import StreamOptions
from ge_core.graph import ComputeGraph, DataType, GeShape, GeTensorDesc, OpDesc
from ge_core.parser import parse_onnx
from ge_core.stage_events import StageBegin, StageEnd

from ge_core.runtime.errors import ModelInputError
from ge_core.runtime.v1.model_manager import ModelManager
from ge_core.runtime.v2 import (EXECUTORS, ExecuteGraphError, ModelV2Executor, StreamExecutor,
                                default_stream, execute_v2, lower_graph)
from ge_core.events import KernelLaunched
from npu_emu.base.trace import TraceRecorder
from npu_emu.runtime import RuntimeConfig
from npu_emu.world import World, current_runtime


def _loaded(built, executor="sequential", stream=None):
    v2 = ModelV2Executor(lower_graph(built.ge_model.graph), stream or default_stream(), executor)
    v2.load()
    return v2


def test_sequential_and_topological_give_identical_outputs_equal_to_host(world):
    built = build_tiny_cnn()
    sequential = execute_v2(built.ge_model, built.feeds, "sequential")
    topological = execute_v2(built.ge_model, built.feeds, "topological")
    assert list(sequential.outputs) == list(topological.outputs)
    for name in sequential.outputs:
        np.testing.assert_array_equal(sequential.outputs[name], topological.outputs[name])
    assert_outputs_close(sequential.outputs, built.expected)
    assert sequential.emulated_ns > 0


def test_the_topological_order_is_not_the_sequential_one(world):
    v2 = _loaded(build_tiny_cnn(), "topological")
    v2.execute(build_tiny_cnn().feeds)
    assert v2.main.order != sorted(v2.main.order)
    assert sorted(v2.main.order) == list(range(len(v2.graph.main.nodes)))
    v2.unload()


def test_load_execute_unload_leaves_the_device_as_it_was(world):
    built = build_tiny_cnn()
    device = default_stream().device
    before_blocks = device.memory.live_blocks()
    before_streams = len(device.scheduler.streams)
    v2 = _loaded(built)
    weights = v2.graph.init.count("SinkWeightData")
    assert len(device.memory.live_blocks()) == len(before_blocks) + weights
    first = v2.execute(built.feeds)
    allocator = v2.values[v2.graph.value_names.index("allocator")]
    assert allocator.live_blocks == 0                 # every tensor freed by its guarder
    taken = allocator.device_allocs
    second = v2.execute(build_tiny_cnn(seed=1).feeds)
    assert allocator.device_allocs == taken           # the second run reuses cached blocks
    assert allocator.reuses > 0 and v2.iterations == 2
    assert not np.array_equal(first.outputs["prob"], second.outputs["prob"])
    v2.unload()
    assert device.memory.live_blocks() == before_blocks
    stream1 = [s for s in device.scheduler.streams[before_streams:]]
    assert stream1 and all(s.destroyed for s in stream1)


def test_repeated_executions_on_two_streams_stay_ordered_by_their_events(world):
    built = build_tiny_cnn()
    v2 = _loaded(built)
    for seed in range(3):   # the Recv's event is reset each time, or run 2 would not wait
        feeds = build_tiny_cnn(seed).feeds
        assert_outputs_close(v2.execute(feeds).outputs, build_tiny_cnn(seed).expected)
    v2.unload()


def test_feeds_by_position_and_bad_feeds(world):
    built = build_tiny_cnn()
    v2 = _loaded(built)
    assert_outputs_close(v2.execute([built.feeds["input"]]).outputs, built.expected)
    with pytest.raises(ModelInputError, match="no value fed for input"):
        v2.execute({})
    with pytest.raises(ModelInputError, match="shape \\[2, 3, 16, 16\\]"):
        v2.execute({"input": np.zeros((2, 3, 16, 16), np.float32)})
    v2.unload()


def test_stream_executor_keeps_one_executor_per_stream(world):
    built = build_tiny_cnn()
    rt = current_runtime()
    streams = [default_stream(), rt.create_stream()]
    executors = StreamExecutor(lower_graph(built.ge_model.graph), "topological")
    results = [executors.execute(built.feeds, s) for s in streams]
    results.append(executors.execute(built.feeds, streams[0]))
    assert sorted(executors.executors) == sorted(s.id for s in streams)
    a, b = (executors.executors[s.id] for s in streams)
    assert a is not b and a.values is not b.values
    assert (a.iterations, b.iterations) == (2, 1)
    for r in results:
        assert_outputs_close(r.outputs, built.expected)
    executors.erase(streams[1])
    assert list(executors.executors) == [streams[0].id]
    executors.unload_all()
    assert executors.executors == {}


def test_execute_v2_accepts_a_compiled_graph_not_built(world):
    graph = parse_onnx(TINY_CNN)
    compile_graph(graph, CompileOptions(dump=None))
    exe = lower_graph(graph)
    assert exe.init.count("CreateStream") == 0 and exe.main.count("RecordEvent") == 0
    built = build_tiny_cnn()
    assert_outputs_close(execute_v2(graph, built.feeds).outputs, built.expected)


def test_a_kernel_failure_names_its_node(world):
    built = build_tiny_cnn()
    exe = lower_graph(built.ge_model.graph)
    (launch,) = [n for n in exe.main.nodes if n.name == "fc" and n.type == "LaunchKernelWithHandle"]
    launch.attrs["n_inputs"] = 1   # a corrupt args table: the kernel gets 1 input, 3 outputs
    v2 = ModelV2Executor(exe, default_stream())
    v2.load()
    with pytest.raises(ExecuteGraphError, match="Main/fc/LaunchKernelWithHandle"):
        v2.execute(built.feeds)


@pytest.mark.parametrize("options", [StreamOptions(use_notify=True),
                                     StreamOptions(stream_max_parallel_num=3),
                                     StreamOptions(max_task_count=30),
                                     StreamOptions(enable_single_stream=True)],
                         ids=["notify", "3-parallel", "split", "single"])
def test_every_stream_build_runs_alike(world, options):
    built = build_tiny_cnn(build_options=BuildOptions(stream=options))
    for executor in EXECUTORS:
        result = execute_v2(built.ge_model, built.feeds, executor)
        assert_outputs_close(result.outputs, built.expected)


def test_stream_active_starts_the_target_stream_after_its_point(world):
    """A hand-built two-stream graph: StreamActive on stream 0 gates stream 1's Neg."""
    graph = ComputeGraph("active")
    desc = GeTensorDesc(GeShape((4,)), DataType.DT_FLOAT)

    def add(name, op_type, inputs, outputs, stream, **attrs):
        op = OpDesc(name, op_type, inputs, outputs, {"stream_id": stream, **attrs})
        op.input_descs, op.output_descs = [desc] * inputs, [desc] * outputs
        return graph.add_node(op)

    x = add("x", "Data", 0, 1, -1, index=0)
    relu = add("relu", "Relu", 1, 1, 0)
    active = add("active", "StreamActive", 0, 0, 0, active_stream_list=[1])
    neg = add("neg", "Neg", 1, 1, 1)
    out = add("out", "NetOutput", 1, 0, 1)
    x.out_data_anchors[0].link_to(relu.in_data_anchors[0])
    relu.out_data_anchors[0].link_to(neg.in_data_anchors[0])
    neg.out_data_anchors[0].link_to(out.in_data_anchors[0])
    relu.out_control_anchor.link_to(active.in_control_anchor)
    active.out_control_anchor.link_to(neg.in_control_anchor)
    exe = lower_graph(graph)
    (node,) = [n for n in exe.main.nodes if n.type == "ActiveStream"]
    (launch,) = [n for n in exe.main.nodes
                 if n.name == "neg" and n.type == "LaunchKernelWithHandle"]
    assert node.id in launch.after
    assert exe.init.count("CreateEvent") == 1
    values = np.array([-1, 2, -3, 4], np.float32)
    for executor in EXECUTORS:
        result = execute_v2(graph, {"x": values}, executor)
        np.testing.assert_array_equal(result.outputs["output_0"], -np.maximum(values, 0))


@pytest.mark.parametrize("lowering", ["v2", "hybrid"])
def test_a_rerun_in_a_fresh_world_replays_the_same_trace(lowering):
    """Invariant 1: same model, same feeds -> the same events, task order, times and bytes."""
    digests = []
    for _ in range(2):
        w = World(RuntimeConfig(memory_bytes=64 << 20))
        recorder = TraceRecorder()
        w.bus.subscribe(recorder)
        with w.entered():
            built = build_tiny_cnn()
            if lowering == "v2":
                execute_v2(built.ge_model, built.feeds, "topological")
            else:
                manager = ModelManager.get_instance()
                model_id = manager.load_hybrid_model(built.graph)
                manager.execute_model(model_id, built.feeds)
                manager.unload(model_id)
        digests.append(recorder.digest())
        assert any(isinstance(e, KernelLaunched) for e in recorder.events)
    assert digests[0] == digests[1]



def test_init_main_and_deinit_are_stages_each_kernel_launched_inside_main():
    """Load runs Init, execute runs Main, unload runs DeInit: three stages on the trace bus, and
    every kernel the execution launches is launched between Main's begin and end."""
    w = World(RuntimeConfig(memory_bytes=64 << 20))
    recorder = TraceRecorder()
    w.bus.subscribe(recorder)
    with w.entered():
        built = build_tiny_cnn()
        recorder.events.clear()   # the compile's own stages are not the executor's
        execute_v2(built.ge_model, built.feeds)
    stages = [(type(e).__name__, e.stage) for e in recorder.events
              if isinstance(e, (StageBegin, StageEnd))]
    assert stages == [("StageBegin", "Init"), ("StageEnd", "Init"), ("StageBegin", "Main"),
                      ("StageEnd", "Main"), ("StageBegin", "DeInit"), ("StageEnd", "DeInit")]
    kinds = [type(e).__name__ for e in recorder.events]
    main_begin = next(i for i, e in enumerate(recorder.events)
                      if isinstance(e, StageBegin) and e.stage == "Main")
    main_end = next(i for i, e in enumerate(recorder.events)
                    if isinstance(e, StageEnd) and e.stage == "Main")
    launched = [i for i, k in enumerate(kinds) if k == KernelLaunched.__name__]
    assert launched and all(main_begin < i < main_end for i in launched)
