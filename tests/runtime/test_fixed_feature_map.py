"""The fixed feature map (GE's SetGraphFixedFeatureMemoryBase, DavinciModel::InitFixedFeatureMap):
HCCL's buffers make their sub memory fixed; memory the user provides holds it, and the model
allocates only the rest of its feature map."""
from pathlib import Path

import numpy as np
import pytest

from ge_core.compiler.memory.graph_mem_splitter import SubMemoryInfo, split
from ge_core.executor import random_feeds
from ge_core.parser import parse_onnx
from ge_core.runtime.errors import GeError
from ge_core.runtime.model_memory import FEATURE_MAP, FIXED_FEATURE_MAP
from ge_core.session import Session
from npu_emu.world import World

MODELS = Path(__file__).resolve().parents[2] / "sample_models"
ALLREDUCE = str(MODELS / "allreduce_step.onnx")   # two HcomAllReduce
TINY = str(MODELS / "tiny_cnn.onnx")              # no HCCL op


def _session(model: str) -> Session:
    session = Session()
    session.add_graph(1, model)
    return session


def _run(session: Session, model: str) -> list[np.ndarray]:
    return session.run_graph(1, random_feeds(parse_onnx(model), 0))


def test_the_user_holds_the_fixed_part_and_the_model_allocates_the_rest():
    world = World()
    with world.entered():
        plain = _session(ALLREDUCE)
        summary = plain.compile_graph(1)
        expected = _run(plain, ALLREDUCE)
        plain.finalize()
        assert 0 < summary.fixed_feature_memory_size <= summary.feature_memory_size

        session = _session(ALLREDUCE)
        session.compile_graph(1)
        memory = world.runtime.device().memory
        fixed = world.runtime.malloc(summary.fixed_feature_memory_size)
        session.set_graph_fixed_feature_memory_base(1, fixed, summary.fixed_feature_memory_size)
        before = memory.free_bytes()
        got = _run(session, ALLREDUCE)
        model = session.executor.model(session.executor.graph_nodes[1])
        segments = {s.name: s for s in model.memory.segments}
        assert segments[FIXED_FEATURE_MAP].device_base == fixed
        assert not segments[FIXED_FEATURE_MAP].owned
        own = sum(s.size for s in model.memory.segments if s.name == FEATURE_MAP)
        assert own == summary.feature_memory_size - summary.fixed_feature_memory_size
        assert before - memory.free_bytes() < summary.feature_memory_size + len(
            session.executor.graph_nodes[1].ge_model.weights) + 4096
        for a, b in zip(got, expected):
            np.testing.assert_array_equal(a, b)
        with pytest.raises(GeError, match="has run"):
            session.set_graph_fixed_feature_memory_base(1, fixed, 1 << 20)
        session.finalize()


def test_too_little_fixed_memory_is_refused_and_a_model_without_hccl_ignores_it():
    world = World()
    with world.entered():
        session = _session(ALLREDUCE)
        need = session.compile_graph(1).fixed_feature_memory_size
        addr = world.runtime.malloc(need)
        with pytest.raises(GeError, match=f"it needs {need}"):
            session.set_graph_fixed_feature_memory_base(1, addr, need - 512)
        session.finalize()
        tiny = _session(TINY)
        assert tiny.compile_graph(1).fixed_feature_memory_size == 0
        tiny.set_graph_fixed_feature_memory_base(1, addr, need)
        _run(tiny, TINY)
        model = tiny.executor.model(tiny.executor.graph_nodes[1])
        assert all(s.name != FIXED_FEATURE_MAP for s in model.memory.segments)
        tiny.finalize()


def test_a_feature_map_past_the_split_size_is_cut_and_only_hccls_part_is_fixed():
    blocks = [(0, False), (100, False), (250, True), (300, False), (520, False)]
    assert split(blocks, 600, split_size=200) == (
        SubMemoryInfo(0, 250, False), SubMemoryInfo(250, 270, True),
        SubMemoryInfo(520, 80, False))
    # at most the split size: one sub memory, fixed if any block is
    assert split(blocks, 600, split_size=600) == (SubMemoryInfo(0, 600, True),)
