"""Shared by the v2 tests: a fresh world per test, tiny_cnn parsed / compiled / built in it."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.compiler.model_builder import BuildOptions, build_model
from ge_core.executor import HostExecutor, random_feeds
from ge_core.graph import ComputeGraph
from ge_core.om.ge_model import GeModel
from ge_core.parser import parse_onnx
from npu_emu.runtime import RuntimeConfig
from npu_emu.world import World

TINY_CNN = Path(__file__).resolve().parents[3] / "sample_models" / "tiny_cnn.onnx"


@pytest.fixture
def world():
    w = World(RuntimeConfig(memory_bytes=256 << 20))
    with w.entered():
        yield w


@dataclass
class Built:
    graph: ComputeGraph
    ge_model: GeModel
    feeds: dict[str, np.ndarray]
    expected: dict[str, np.ndarray]   # the host executor's outputs


def build_tiny_cnn(seed: int = 0, build_options: BuildOptions | None = None) -> Built:
    graph = parse_onnx(TINY_CNN)
    feeds = random_feeds(graph, seed)
    expected = HostExecutor(graph).run(feeds)
    compile_graph(graph, CompileOptions(dump=None))
    return Built(graph, build_model(graph, build_options).ge_model, feeds, expected)


def assert_outputs_close(got: dict, expected: dict) -> None:
    assert list(got) == list(expected)
    for name in expected:
        np.testing.assert_allclose(got[name], expected[name], rtol=1e-5, atol=1e-6)
