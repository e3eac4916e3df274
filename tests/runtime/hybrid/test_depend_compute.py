"""DEPEND_COMPUTE ops (GE's unknown-shape type 4: Unique, NonZero ...) on the hybrid path: the
kernel fills result summaries, the host reads them after a sync, allocates the outputs at their
real sizes and has them copied in; onnxruntime is the oracle, and no block outlives the model."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.parser import parse_onnx
from ge_core.runtime.hybrid import HYBRID_LOWERING, HybridDavinciModel
from ge_core.runtime.v2 import lower_graph
from npu_emu.world import World
from npu_emu.runtime import RuntimeConfig


def _model() -> onnx.ModelProto:
    # Unique's four outputs, and the NonZero positions of x > 0 fed to a kernel after them.
    nodes = [helper.make_node("Unique", ["x"], ["y", "first", "inverse", "counts"]),
             helper.make_node("Greater", ["x", "zero"], ["positive"]),
             helper.make_node("NonZero", ["positive"], ["where"]),
             helper.make_node("Neg", ["where"], ["minus"])]
    graph = helper.make_graph(
        nodes, "depend_compute", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None])],
        [helper.make_tensor_value_info(n, t, None) for n, t in
         (("y", TensorProto.FLOAT), ("first", TensorProto.INT64),
          ("inverse", TensorProto.INT64), ("counts", TensorProto.INT64),
          ("minus", TensorProto.INT64))],
        [helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.fixture
def device():
    """Device 0 of a fresh world, with room to spare."""
    world = World(RuntimeConfig(memory_bytes=64 << 20))
    with world.entered():
        yield world.runtime.set_device(0)


def _compiled_model():
    graph = parse_onnx(_model())
    compile_graph(graph, CompileOptions(dump=None))
    return graph


def test_a_depend_compute_op_is_lowered_around_result_summaries(device):
    main = lower_graph(_compiled_model(), HYBRID_LOWERING).main
    steps = [(n.type, n.name) for n in main.nodes if n.name.startswith("NonZero")]
    assert [t for t, _ in steps if t != "FreeMemory"] == [
        "AllocMemory", "LaunchKernelWithSummary", "SyncStream", "GetSummaryOutputs",
        "AllocMemory", "CopySummaryOutputs"]


def test_outputs_of_computed_sizes_match_onnxruntime_and_no_block_is_left(device):
    session = ort.InferenceSession(_model().SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    live_before = len(device.memory.live_blocks())
    model = HybridDavinciModel(_compiled_model())
    model.init()
    for x in ([3, -1, 3, 2, 0, 2, 3], [5.0], [-2, -2, 4, 1]):
        x = np.array(x, np.float32)
        got = model.execute({"x": x}).outputs
        for name, want in zip(("y", "first", "inverse", "counts", "minus"),
                              session.run(None, {"x": x})):
            np.testing.assert_array_equal(got[name], want, err_msg=name)
            assert got[name].dtype == want.dtype
    model.unload()
    device.memory.empty_cache()
    assert len(device.memory.live_blocks()) == live_before
