"""Conv's stride-1 im2col from shifted runs of the input and its banded im2col (a band of output
rows at a time) against onnx's ReferenceEvaluator, on shapes chosen so that the path is taken
(see nn._shifted_columns and nn._banded_im2col_conv)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from kernel_oracle import check_kernel, reference

OPSET = 22


def rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def spy(monkeypatch, name: str) -> list:
    """The calls of ``nn.<name>``, one entry each, as they pass through to it."""
    from npu_emu.op_impl import nn
    taken = []
    real = getattr(nn, name)
    monkeypatch.setattr(nn, name, lambda *a: taken.append(1) or real(*a))
    return taken


def conv_case(x_shape, w_shape) -> list[np.ndarray]:
    return [rand(*x_shape), rand(*w_shape, seed=1), rand(w_shape[0], seed=2)]


def check_path(monkeypatch, path: str, x_shape, w_shape, attrs: dict, atol: float) -> None:
    """Conv with bias through ``nn.<path>`` against the reference, as check_kernel calls it and
    into an output handed in (as the device does): the path taken both times."""
    from npu_emu.op_impl import nn
    taken = spy(monkeypatch, path)
    inputs = conv_case(x_shape, w_shape)
    want = reference("Conv", inputs, OPSET, 1, **attrs)
    check_kernel("Conv", inputs, OPSET, want, rtol=1e-4, atol=atol, **attrs)
    into = np.full(want[0].shape, np.nan, np.float32)
    (got,) = nn.conv(*inputs, out=[into], **attrs)
    assert got is into and len(taken) == 2
    np.testing.assert_allclose(got, want[0], rtol=1e-4, atol=atol)


@pytest.mark.parametrize("x_shape, w_shape, attrs", [
    ((2, 8, 5, 30), (4, 8, 3, 3), {"pads": [1, 1, 1, 1]}),
    ((1, 8, 5, 40), (4, 8, 3, 3), {"pads": [1, 2, 1, 2], "dilations": [1, 2]}),
    ((1, 3, 9, 7), (4, 3, 3, 2), {"pads": [2, 0, 1, 3], "dilations": [3, 1]}),
    # pads wider than the kernel reaches: whole rows and columns of zeros
    ((1, 2, 4, 3), (3, 2, 2, 2), {"pads": [3, 4, 2, 3]}),
    ((2, 6, 7, 9), (12, 1, 3, 3), {"group": 6, "auto_pad": "SAME_UPPER"}),
    ((1, 8, 6, 6), (4, 2, 3, 3), {"group": 4, "pads": [1, 0, 1, 0]}),
    ((1, 4, 6, 6), (4, 4, 1, 1), {"pads": [1, 1, 0, 0]}),  # 1x1, padded: not the input itself
    ((1, 3, 40), (4, 3, 5), {"pads": [2, 1], "dilations": [2]}),
    ((1, 3, 40), (4, 3, 5), {"pads": [2, 2]}),
    # shifts wider than the map: every read of an outer tap wraps
    ((1, 2, 3, 2), (2, 2, 1, 3), {"pads": [0, 3, 0, 3], "dilations": [1, 3]}),
    ((1, 8, 2, 2, 40), (2, 8, 1, 1, 3), {"pads": [0, 0, 1, 0, 0, 1]}),
    ((1, 2, 5, 6, 7), (3, 2, 3, 2, 3), {"pads": [1, 0, 2, 1, 1, 0], "dilations": [1, 2, 1]}),
])
def test_conv_shifted_im2col(monkeypatch, x_shape, w_shape, attrs):
    from npu_emu.op_impl import nn
    monkeypatch.setattr(nn, "_row_taps", lambda *a: False)  # not the row-tap path
    taken = spy(monkeypatch, "_shifted_columns")
    inputs = conv_case(x_shape, w_shape)
    check_kernel("Conv", inputs, OPSET, reference("Conv", inputs, OPSET, 1, **attrs),
                 rtol=1e-4, atol=1e-5, **attrs)
    assert taken


@pytest.mark.parametrize("x_shape, w_shape, attrs", [
    # DenseNet's 128-to-32 3x3, small; batch 2, uneven pads
    ((1, 128, 7, 7), (32, 128, 3, 3), {"pads": [1, 1, 1, 1]}),
    ((2, 16, 6, 9), (8, 16, 3, 3), {"pads": [2, 0, 1, 3]}),
    # no pads; pads wider than the kernel reaches; dilated both ways; rows of another width
    ((1, 12, 8, 8), (6, 12, 3, 3), {}),
    ((1, 8, 4, 3), (3, 8, 2, 2), {"pads": [3, 4, 2, 3]}),
    ((1, 8, 9, 10), (4, 8, 3, 3), {"pads": [2, 1, 2, 1], "dilations": [2, 3]}),
    ((1, 8, 9, 7), (4, 8, 5, 2), {"pads": [2, 0, 2, 0], "dilations": [1, 2]}),
    ((1, 8, 5, 6), (4, 8, 2, 1), {}),
])
def test_conv_row_taps(monkeypatch, x_shape, w_shape, attrs):
    # Few outputs for many inputs (M <= 32, M <= C / 2): one matmul by the kernel rows' weights,
    # each row's product summed in a row further down; into the output handed in.
    check_path(monkeypatch, "_row_tap_conv", x_shape, w_shape, attrs, atol=1e-4)


@pytest.mark.parametrize("x_shape, w_shape, attrs", [
    ((1, 16, 8, 8), (9, 16, 3, 3), {"pads": [1, 1, 1, 1]}),  # M > C / 2
    ((1, 128, 8, 8), (33, 128, 3, 3), {"pads": [1, 1, 1, 1]}),  # M > 32
    ((1, 16, 9, 9), (4, 16, 3, 3), {"strides": [2, 2]}),
    ((1, 16, 9, 9), (4, 16, 1, 3), {}),  # one kernel row: im2col's kw shifts are the columns
    ((1, 16, 8, 8), (4, 4, 3, 3), {"group": 4}),
])
def test_conv_row_taps_not_taken(monkeypatch, x_shape, w_shape, attrs):
    from npu_emu.op_impl import nn
    monkeypatch.setattr(nn, "_row_tap_conv", lambda *a: pytest.fail("row taps taken"))
    x, w = rand(*x_shape), rand(*w_shape, seed=1)
    check_kernel("Conv", [x, w], OPSET, rtol=1e-4, atol=1e-4, **attrs)


@pytest.mark.parametrize("x_shape, m", [((0, 3, 5, 5), 4), ((2, 3, 0, 5), 4), ((1, 0, 5, 5), 4),
                                        ((1, 3, 5, 5), 0)])
def test_conv_of_an_empty_input_or_no_filters(x_shape, m):
    # an empty batch or map, or no filters, has no outputs; no input channels, sums of nothing:
    # the bias
    x, w, b = rand(*x_shape), rand(m, x_shape[1], 3, 3, seed=1), rand(m, seed=2)
    check_kernel("Conv", [x, w, b], OPSET, rtol=0, atol=0, pads=[1, 1, 1, 1])


@pytest.mark.parametrize("kernel, dilations, pads, path", [
    # rows of another width than the output's: row by row
    ((3, 2), [2, 1], [1, 0, 2, 0], "_shift_rows"),
    # the output's width: whole channels at once
    ((3, 3), [1, 2], [1, 2, 1, 2], "_shift_whole"),
])
def test_shifted_columns_are_the_window_views(monkeypatch, kernel, dilations, pads, path):
    # The same matrix as the padded input's window view, so the conv rounds as im2col did.
    from npu_emu.op_impl import nn
    taken = []
    shift = getattr(nn, path)
    monkeypatch.setattr(nn, path, lambda *a: taken.append(1) or shift(*a))
    x = rand(2, 3, 7, 8)
    g = nn._geometry(x.shape[2:], kernel, None, dilations, pads, "NOTSET")
    windows = nn._windows(nn._padded(x, g, 0), g).reshape(2, 3 * math.prod(kernel), -1)
    np.testing.assert_array_equal(nn._shifted_columns(x, g), windows)
    assert taken


class _Poisoned:
    """numpy, but ``empty`` hands out NaNs: memory a kernel reads before it writes shows."""

    def __getattr__(self, name: str) -> object:
        return getattr(np, name)

    @staticmethod
    def empty(shape: object, dtype: object = float) -> np.ndarray:
        return np.full(shape, np.nan, dtype)


@pytest.mark.parametrize("x_shape, kernel, dilations, pads", [
    ((2, 3, 7, 8), (3, 3), [1, 2], [1, 2, 1, 2]),   # padding rows above and below
    ((1, 2, 5, 5), (5, 5), [1, 1], [2, 2, 2, 2]),
    ((1, 3, 1), (5,), [1], [4, 0]),                 # a shift that reads nothing of the input
    ((1, 2, 2, 3), (4, 3), [2, 1], [3, 1, 3, 1]),   # more rows of padding than of input
])
def test_shifted_columns_zero_their_padding_whatever_the_memory_held(monkeypatch, x_shape,
                                                                     kernel, dilations, pads):
    # _shift_whole writes into uninitialised memory: every element outside the input, zero.
    from npu_emu.op_impl import nn
    x = rand(*x_shape)
    g = nn._geometry(x.shape[2:], kernel, None, dilations, pads, "NOTSET")
    assert tuple(g.out[-1:]) == x.shape[-1:]   # the output's width: whole channels at once
    windows = nn._windows(nn._padded(x, g, 0), g).reshape(x.shape[0], -1, math.prod(g.out))
    monkeypatch.setattr(nn, "np", _Poisoned())
    np.testing.assert_array_equal(nn._shifted_columns(x, g), windows)


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
    check_path(monkeypatch, "_banded_im2col_conv", x_shape, w_shape, attrs, atol=1e-5)


def test_conv_stem_takes_banded_im2col(monkeypatch):
    # A 3-channel 7x7 stride-2 stem's columns (147 x 8100 here) outgrow one band.
    taken = spy(monkeypatch, "_banded_im2col_conv")
    x, w = rand(1, 3, 180, 180), rand(8, 3, 7, 7, seed=1)
    attrs = {"strides": [2, 2], "pads": [3, 3, 3, 3]}
    check_kernel("Conv", [x, w], OPSET, rtol=1e-4, atol=1e-5, **attrs)
    assert taken
