"""DFT's axis against onnx's reference evaluator: ONNX counts a negative one from the back of
the whole shape, real/imaginary axis included (-2: the signal's last axis, opset 20's default),
and the trailing axis itself is no signal axis. Both the kernel and InferShape (the output's
declared shape) are checked: they counted a negative axis in the signal's rank, one too few."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import numpy_helper

from ge_core.executor import HostExecutor
from ge_core.parser import ParseError, parse_onnx
from kernel_oracle import check_kernel, one_node_model, reference

F4 = np.float32
X = np.random.default_rng(0).standard_normal((2, 6, 5, 2)).astype(F4)   # rank 4: complex pairs
CASES = [dict(), dict(onesided=1), dict(inverse=1), dict(inverse=1, onesided=1)]


def _attrs(opset: int, axis: int, **flags: int) -> tuple[list, dict]:
    """(inputs, attrs) of a DFT along ``axis``: an attr before opset 20, an input since. A
    forward one-sided transform takes a real signal (a trailing axis of 1)."""
    x = X[..., :1] if flags.get("onesided") and not flags.get("inverse") else X
    if opset >= 20:
        return [x, None, np.array(axis, np.int64)], flags
    return [x], dict(axis=axis, **flags)


@pytest.mark.parametrize("opset", [17, 20])
@pytest.mark.parametrize("flags", CASES, ids=lambda f: "-".join(f) or "plain")
@pytest.mark.parametrize("axis", [-3, -2, 1, 2])
def test_a_dft_axis_counts_in_the_whole_shape(opset, flags, axis):
    inputs, attrs = _attrs(opset, axis, **flags)
    check_kernel("DFT", inputs, opset, rtol=1e-5, atol=1e-5, **attrs)
    # the model's declared output shape, from InferShape, is the reference's
    model, feeds = one_node_model("DFT", inputs, opset, **attrs)
    if opset >= 20:   # the axis a constant, as InferShape needs it to be
        model.graph.initializer.append(numpy_helper.from_array(feeds.pop("in2"), "in2"))
        del model.graph.input[1:]
    graph = parse_onnx(model)
    (expected,) = reference("DFT", inputs, opset, **attrs)
    assert graph.find_node("DFT_0").op_desc.output_descs[0].shape.dims == expected.shape
    (got,) = HostExecutor(graph).run(feeds).values()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_opset_20s_default_axis_is_the_signals_last():
    (expected,) = reference("DFT", [X, None, np.array(2, np.int64)], 20)
    check_kernel("DFT", [X], 20, [expected], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("axis", [-1, 3, -5, 4])
def test_no_axis_past_the_signals_is_taken(axis):
    model, _ = one_node_model("DFT", [X], 17, axis=axis)
    with pytest.raises(ParseError, match=f"node 'DFT_0'.*axis {axis}"):
        parse_onnx(model)
