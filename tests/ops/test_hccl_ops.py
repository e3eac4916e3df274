"""GE's Hcom collectives in a model: parsed, placed on DNN_HCCL, given a stream of their own,
built into an HCCL task and run on the emulated device, a group of one rank. The oracle is
onnxruntime on the same model with each collective replaced by what it is on one rank, Identity."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.compiler.model_builder import build_model
from ge_core.model_task_type import ModelTaskType
from ge_core.ops import get_op_def
from ge_core.parser import parse_onnx
from ge_core.runtime.v1 import GraphLoader, ModelManager
from npu_emu.world import World
from npu_emu.runtime import RuntimeConfig

ROOT = Path(__file__).resolve().parents[2]


def _allreduce_step() -> onnx.ModelProto:
    """The lessons' training step (scripts/make_lesson_models.py)."""
    return onnx.load(ROOT / "sample_models" / "allreduce_step.onnx")


def test_the_collectives_are_registered_in_their_own_family():
    for op in ("HcomAllReduce", "HcomBroadcast", "HcomAllGather"):
        assert get_op_def(op).family == "hccl"


def test_an_allreduce_step_runs_on_its_own_stream_and_matches_onnxruntime():
    proto = _allreduce_step()
    graph = parse_onnx(proto)
    compile_graph(graph, CompileOptions(dump=None))
    reduce = graph.find_node("allreduce_1")
    assert reduce.op_desc.get_attr("engine") == "DNN_HCCL"
    built = build_model(graph)
    computes = {graph.find_node(n).op_desc.get_attr("stream_id")
                for n in ("grad_1", "grad_2", "scale_1")}
    assert reduce.op_desc.get_attr("stream_id") not in computes
    assert any(t.type == ModelTaskType.HCCL for t in built.ge_model.task_def.task)

    x = np.random.default_rng(0).random((8, 8), dtype=np.float32)
    world = World(RuntimeConfig(memory_bytes=64 << 20))
    with world.entered():
        world.runtime.set_device(0)
        manager = ModelManager.get_instance()
        device = manager.get_model(GraphLoader.load_model_online(built.ge_model)).nn_execute(
            {"x": x})
        world.runtime.close()

    for node in proto.graph.node:   # one rank: each collective hands back its input
        if node.op_type == "HcomAllReduce":
            node.op_type = "Identity"
            del node.attribute[:]
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in proto.graph.output]
    for name, expected in zip(names, session.run(names, {"x": x})):
        np.testing.assert_allclose(device[name], expected, rtol=1e-5, atol=1e-6)
