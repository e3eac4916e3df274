"""Conv's stride-1 "flat" im2col (columns over the padded rows, product cropped after) and its
banded im2col (a band of output rows at a time) against onnx's ReferenceEvaluator, on shapes
chosen so that the path is taken (see nn._flat_conv and nn._banded_im2col_conv)."""
from __future__ import annotations

import numpy as np
import pytest

from kernel_oracle import check_kernel, reference

OPSET = 22


def rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("x_shape, w_shape, attrs", [
    # Wide rows, few outputs next to C * kernel: taken for group 1.
    ((2, 8, 5, 30), (4, 8, 3, 3), {"pads": [1, 1, 1, 1]}),
    ((1, 8, 5, 40), (4, 8, 3, 3), {"pads": [1, 2, 1, 2], "dilations": [1, 2]}),
    ((1, 8, 2, 2, 40), (2, 8, 1, 1, 3), {"pads": [0, 0, 1, 0, 0, 1]}),
    # Grouped: always taken with stride 1. Depthwise with a channel multiplier, SAME padding.
    ((2, 6, 7, 9), (12, 1, 3, 3), {"group": 6, "auto_pad": "SAME_UPPER"}),
    ((1, 8, 6, 6), (4, 2, 3, 3), {"group": 4, "pads": [1, 0, 1, 0]}),
])
def test_conv_flat_im2col(x_shape, w_shape, attrs):
    x, w, b = rand(*x_shape), rand(*w_shape, seed=1), rand(w_shape[0], seed=2)
    want = reference("Conv", [x, w, b], OPSET, 1, **attrs)
    check_kernel("Conv", [x, w, b], OPSET, want, rtol=1e-4, atol=1e-5, **attrs)


@pytest.mark.parametrize("x_shape, w_shape, attrs", [
    # Strided and dilated, uneven pads, batch 2, rows that do not divide into bands; 1-D, 3-D.
    ((2, 3, 23, 19), (5, 3, 7, 7), {"strides": [2, 2], "pads": [3, 2, 1, 3]}),
    ((1, 4, 17, 16), (6, 4, 3, 3), {"strides": [1, 2], "dilations": [2, 1], "pads": [1, 1, 1, 1]}),
    ((1, 3, 40), (4, 3, 5), {"strides": [3], "pads": [2, 1]}),
    ((1, 2, 9, 8, 7), (3, 2, 3, 2, 3), {"strides": [2, 1, 2], "pads": [1, 0, 1, 1, 0, 1]}),
])
def test_conv_banded_im2col(monkeypatch, x_shape, w_shape, attrs):
    from npu_emu.op_impl import nn
    monkeypatch.setattr(nn, "_IM2COL_BAND", 40)  # a band of one or two output rows
    taken = []
    banded = nn._banded_im2col_conv
    monkeypatch.setattr(nn, "_banded_im2col_conv", lambda *a: taken.append(1) or banded(*a))
    x, w, b = rand(*x_shape), rand(*w_shape, seed=1), rand(w_shape[0], seed=2)
    want = reference("Conv", [x, w, b], OPSET, 1, **attrs)
    check_kernel("Conv", [x, w, b], OPSET, want, rtol=1e-4, atol=1e-5, **attrs)
    into = np.full(want[0].shape, np.nan, np.float32)  # as the device hands it its output
    (got,) = nn.conv(x, w, b, out=[into], **attrs)
    assert got is into and len(taken) == 2
    np.testing.assert_allclose(got, want[0], rtol=1e-4, atol=1e-5)


def test_conv_stem_takes_banded_im2col(monkeypatch):
    # A 3-channel 7x7 stride-2 stem's columns (147 x 8100 here) outgrow one band.
    from npu_emu.op_impl import nn
    taken = []
    banded = nn._banded_im2col_conv
    monkeypatch.setattr(nn, "_banded_im2col_conv", lambda *a: taken.append(1) or banded(*a))
    x, w = rand(1, 3, 180, 180), rand(8, 3, 7, 7, seed=1)
    attrs = {"strides": [2, 2], "pads": [3, 3, 3, 3]}
    check_kernel("Conv", [x, w], OPSET, rtol=1e-4, atol=1e-5, **attrs)
    assert taken
