"""Random small networks (random_networks.py), convolutional and transformer-like, through the
whole compile: the host's kernels against onnxruntime, then the model built, saved as an OM and
run on the emulated device, and the compiled graph run on the host, against the kernels; then
at batches of 1 to 3, built under options a user sets on `gewb compile` (streams, notifies,
events, splits, memory assigners, fused pointwise chains), on the device against the kernels.
Such networks found two channel shuffles in a row fused into none (TransposeTransposeFusionPass
across a removed Reshape), a Concat laid over a graph output behind a view (ConcatNotaskPass),
a FusedBatchNormRelu of a transposed input left unrectified on the host, and a no-task Concat
written on two streams in a block one of them had freed (the memory plan is checked too)."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from hypothesis import given, settings, strategies as st

from ge_core.compiler import CompileOptions
from ge_core.compiler.memory import MemoryOptions, check_no_overlap
from ge_core.compiler.memory.hybrid_mem_assigner import ASSIGNERS
from ge_core.compiler.model_builder import BuildOptions
from ge_core.compiler.stream.stream_options import StreamOptions
from ge_core.om import load_om_bytes, om_bytes
from ge_core.session import GraphManager
from npu_emu.runtime import RuntimeConfig
from npu_emu.world import World
from random_networks import network, sequence_network
from workbench.conformance.vias import MANAGER, VIAS


class _Draws:
    """random_networks' Draw from hypothesis, so that a failing network shrinks."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def choice(self, options):
        return self.data.draw(st.sampled_from(options))

    def coin(self) -> bool:
        return self.data.draw(st.booleans())

    def integer(self, lo: int, hi: int) -> int:
        return self.data.draw(st.integers(lo, hi))


def _drawn(data: st.DataObject, batch: int = 1) -> tuple[onnx.ModelProto, dict, list]:
    """A random network, its feeds, and its outputs by the host's kernels, which agree with
    onnxruntime's within float32's spread over a few ops (a LayerNorm of a nearly constant row
    magnifies it)."""
    family = data.draw(st.sampled_from([network, sequence_network]), label="family")
    model = family(_Draws(data), data.draw(st.integers(3, 24), label="ops"), batch)
    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    feeds = {"x": np.random.default_rng(0).standard_normal(shape).astype(np.float32)}
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    want = ort.InferenceSession(model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"]).run(None, feeds)
    host = VIAS["host"](model, feeds)
    _close(host, want, model, "host", 1e-3)
    return model, feeds, host


def _agrees(data: st.DataObject) -> None:
    model, feeds, host = _drawn(data)
    graph = MANAGER.parse(model)
    MANAGER.compile(graph)
    # an overlap is a fault whether or not this input shows it
    check_no_overlap(MANAGER.build(graph).memory)
    for via in ("device", "optimized"):   # the compiled model against the kernels, closely
        _close(VIAS[via](model, feeds), host, model, via, 1e-4)


def _options(data: st.DataObject) -> tuple[CompileOptions, BuildOptions]:
    """The options a user sets on `gewb compile` that change the build: pointwise chains fused
    (--autofuse), streams (parallel, one, notifies, fewest events, split at a task count),
    memory (reuse off, memory priority, our offset assigners); and, as no flag does, one of
    the hybrid's block assigners alone."""
    draw = data.draw
    stream = StreamOptions(stream_max_parallel_num=draw(st.sampled_from([1, 2, 4])),
                           enable_single_stream=draw(st.booleans()),
                           use_notify=draw(st.booleans()), minimise_events=draw(st.booleans()),
                           max_task_count=draw(st.sampled_from([None, 30, 33])))
    memory = MemoryOptions(disable_reuse=draw(st.booleans()), memory_priority=draw(st.booleans()),
                           offset_assigners=draw(st.booleans()),
                           assigners=draw(st.sampled_from([None, *((a,) for a in ASSIGNERS)])))
    return (CompileOptions(dump=None, autofuse=draw(st.booleans())),
            BuildOptions(stream=stream, memory=memory))


def _agrees_under_options(data: st.DataObject) -> None:
    model, feeds, host = _drawn(data, data.draw(st.integers(1, 3), label="batch"))
    manager = GraphManager(*_options(data))
    graph = manager.parse(model)
    manager.compile(graph)
    # the race detector judges the orderings the build made, whichever order this run's
    # scheduler picked; a second execution finds events or notifies left set by the first
    world = World(RuntimeConfig(race_check=True))
    with world.entered():
        built = manager.build(graph)
        check_no_overlap(built.memory)
        loaded = load_om_bytes(om_bytes(built.ge_model))
        runs = [list(manager.run(loaded, feeds).values()) for _ in range(2)]
        assert not world.runtime.faults, world.runtime.faults[0].message
    for got in runs:
        _close(got, host, model, "device", 1e-4)


def _close(got: list, want: list, model: onnx.ModelProto, via: str, tolerance: float) -> None:
    assert len(got) == len(want), via
    for name, w, g in zip((out.name for out in model.graph.output), want, got):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=tolerance, atol=tolerance,
                                   equal_nan=True, err_msg=f"{via}: output {name}")


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(st.data())
def test_a_random_network_computes_what_onnxruntime_does(data):
    _agrees(data)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, derandomize=True, database=None)
@given(st.data())
def test_many_random_networks_compute_what_onnxruntime_does(data):
    _agrees(data)


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(st.data())
def test_a_random_network_under_random_build_options_computes_the_same(data):
    _agrees_under_options(data)


@pytest.mark.slow
@settings(max_examples=600, deadline=None, derandomize=True, database=None)
@given(st.data())
def test_many_random_networks_under_random_build_options_compute_the_same(data):
    _agrees_under_options(data)
