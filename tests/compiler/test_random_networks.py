"""Random small networks (random_networks.py), convolutional and transformer-like, through the
whole compile: the host's kernels against onnxruntime, then the model built, saved as an OM and
run on the emulated device, and the compiled graph run on the host, against the kernels.
Such networks found two channel shuffles in a row fused into none (TransposeTransposeFusionPass
across a removed Reshape), a Concat laid over a graph output behind a view (ConcatNotaskPass),
a FusedBatchNormRelu of a transposed input left unrectified on the host, and a no-task Concat
written on two streams in a block one of them had freed (the memory plan is checked too)."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from hypothesis import given, settings, strategies as st

from ge_core.compiler.memory import check_no_overlap
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


def _agrees(data: st.DataObject) -> None:
    family = data.draw(st.sampled_from([network, sequence_network]), label="family")
    model = family(_Draws(data), data.draw(st.integers(3, 24), label="ops"))
    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    feeds = {"x": np.random.default_rng(0).standard_normal(shape).astype(np.float32)}
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    want = ort.InferenceSession(model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"]).run(None, feeds)
    graph = MANAGER.parse(model)
    MANAGER.compile(graph)
    # an overlap is a fault whether or not this input shows it
    check_no_overlap(MANAGER.build(graph).memory)
    names = [out.name for out in model.graph.output]
    # the kernels against onnxruntime, within float32's spread over a few ops (a LayerNorm of a
    # nearly constant row magnifies it); the compiled model against the kernels, closely
    host = VIAS["host"](model, feeds)
    _close(host, want, names, "host", 1e-3)
    for via in ("device", "optimized"):
        _close(VIAS[via](model, feeds), host, names, via, 1e-4)


def _close(got: list, want: list, names: list[str], via: str, tolerance: float) -> None:
    assert len(got) == len(want), via
    for name, w, g in zip(names, want, got):
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
