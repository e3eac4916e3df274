"""HybridDavinciModel: a dynamic-batch model run host-scheduled node by node on the device,
with shapes inferred at run time, against the host executor and onnxruntime; loaded by the
world's ModelManager as GE chooses it; the host launch gaps on the device timeline."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from hybrid_testing import batch, dynamic_batch_model

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.executor import HostExecutor
from ge_core.parser import parse_onnx
from ge_core.runtime.hybrid import HybridDavinciModel
from ge_core.runtime.v1.model_manager import ModelManager
from ge_core.runtime.v2 import default_stream
from ge_core.events import KernelLaunched
from ge_core.runtime.v2.execute_graph import ExecuteGraphError
from npu_emu.base.trace import TraceRecorder
from npu_emu.runtime import RuntimeConfig
from npu_emu.scheduler.task import TaskType
from npu_emu.timeline import Timeline
from npu_emu.world import World

SIMPLE = Path(onnx.__file__).parent / "backend" / "test" / "data" / "simple"
KERNEL_TYPES = {TaskType.KERNEL_AICORE, TaskType.KERNEL_AIVEC, TaskType.KERNEL_AICPU}


@pytest.fixture
def world():
    w = World(RuntimeConfig(memory_bytes=64 << 20))
    with w.entered():
        yield w


def _compiled():
    graph = parse_onnx(dynamic_batch_model())
    compile_graph(graph, CompileOptions(dump=None))
    return graph


def test_a_dynamic_batch_model_needs_hybrid_load(world):
    graph = _compiled()
    assert graph.input_nodes[0].op_desc.output_descs[0].shape.dims[0] == -1
    # The flatten's target shape is computed on the device: its InferShape reads it back.
    (reshape,) = [n for n in graph.nodes if n.name == "Reshape_6"]
    assert reshape.op_desc.output_descs[0].shape.dims == (-1, -1)
    assert ModelManager.is_need_hybrid_load(graph)


@pytest.mark.parametrize("executor", ["sequential", "topological"])
def test_batches_1_and_3_match_the_host_and_onnxruntime(world, executor):
    graph = _compiled()
    session = ort.InferenceSession(dynamic_batch_model().SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    model = HybridDavinciModel(graph)
    model.init(executor=executor)
    for n in (1, 3, 1):
        x = batch(n)
        got = model.execute({"x": x}).outputs["y"]
        assert got.shape == (n, 5)
        np.testing.assert_allclose(got, HostExecutor(graph).run({"x": x})["y"], rtol=1e-6)
        np.testing.assert_allclose(got, session.run(None, {"x": x})[0], rtol=1e-4, atol=1e-6)
    model.unload()


def test_the_worlds_model_manager_loads_it_hybrid_and_keeps_it_until_unloaded(world):
    manager = ModelManager.get_instance()
    model_id = manager.load_model(_compiled())
    assert isinstance(manager.hybrid_model_map[model_id], HybridDavinciModel)
    assert model_id not in manager.model_map
    manager.unload(model_id)
    assert model_id not in manager.hybrid_model_map


def test_each_execution_allocates_for_its_own_shapes(world):
    model = HybridDavinciModel(_compiled())
    model.init()
    allocator = model.executor.values[model.executor.graph.value_names.index("allocator")]
    model.execute({"x": batch(1)})
    small = allocator.device_allocs
    model.execute({"x": batch(1)})
    assert allocator.device_allocs == small           # same shapes: cached blocks reused
    model.execute({"x": batch(64)})
    assert allocator.device_allocs > small            # larger tensors need larger blocks
    assert allocator.live_blocks == 0
    model.unload()


def test_the_timeline_shows_the_host_launch_gaps_between_kernels(world):
    timeline = Timeline()
    world.bus.subscribe(timeline)
    launched = TraceRecorder()
    world.bus.subscribe(launched)
    manager = ModelManager.get_instance()
    model_id = manager.load_model(_compiled())
    manager.execute_model(model_id, {"x": batch(1)})
    emulated_ns = manager.get_hybrid_model(model_id).last_execute_ns
    manager.unload(model_id)
    kernel_types = {int(t) for t in KERNEL_TYPES}
    kernels = [s for s in timeline.slices if s[4] in kernel_types]
    launch_ns = default_stream().device.cost.host_launch_ns
    assert [e.node for e in launched.events if isinstance(e, KernelLaunched)] == \
        ["Relu_1", "Shape_2", "Gather_3", "Concat_5", "Gemm_7", "Softmax_8"]
    assert len(kernels) == 6
    # A kernel shorter than a launch, started as soon as the host launched it (the device idle
    # before it), leaves the device idle until the host issues the next one. After a kernel
    # that outlasts a launch (an AI CPU kernel) the host is ahead: the next ones queued
    # meanwhile start back to back, with no gap.
    idle_before = [True] + [b[6] > a[7] for a, b in zip(kernels, kernels[1:])]
    short = [(a, b) for a, b, idle in zip(kernels, kernels[1:], idle_before)
             if idle and a[7] - a[6] < launch_ns]
    assert len(short) >= 2
    for a, b in short:
        assert b[6] > a[7] and b[6] - a[6] >= launch_ns
    # The Reshape's InferShape read the Concat's result back: the host waited for the device,
    # then paid a launch before the Gemm could start.
    concat, gemm = kernels[3], kernels[4]
    assert (concat[3], gemm[3]) == ("Concat", "Gemm") and gemm[6] - concat[7] == launch_ns
    assert emulated_ns >= launch_ns * len(kernels)


def test_a_failed_execution_frees_its_blocks_and_the_model_runs_again(world):
    """Expand to a shape fed at run time: [0, 0] cannot be broadcast to, after the execution
    has taken blocks; they are freed with it, so the model runs again and unloads cleanly."""
    graph = parse_onnx(SIMPLE / "test_expand_shape_model2" / "model.onnx")
    compile_graph(graph, CompileOptions(dump=None))
    model = HybridDavinciModel(graph)
    model.init()
    x = np.arange(3, dtype=np.float32).reshape(1, 3, 1)
    with pytest.raises(ExecuteGraphError, match=r"cannot broadcast \[1,3,1\] and \[0,0\]"):
        model.execute({"X": x, "shape": np.array([0, 0], np.int64)})
    y = model.execute({"X": x, "shape": np.array([1, 3], np.int64)}).outputs["Y"]
    np.testing.assert_array_equal(y, np.broadcast_to(x, (1, 3, 3)))
    model.unload()
