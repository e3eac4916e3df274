"""Conv's Winograd paths, F(2x2, 3x3) and F(4x4, 3x3), against onnx's ReferenceEvaluator, on
shapes chosen so that each is taken (see winograd.winograd_tile), and the paths themselves on
small shapes."""
from __future__ import annotations

import numpy as np
import pytest

from kernel_oracle import check_kernel, reference
from npu_emu.op_impl import nn, winograd

OPSET = 22


def rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("x_shape, w_shape, attrs, tile", [
    # F(4x4): 64 input channels, 32 outputs, 20x20 outputs or more; odd sizes, SAME, batch 2.
    ((1, 128, 28, 28), (128, 128, 3, 3), {"pads": [1, 1, 1, 1]}, 4),
    ((2, 128, 29, 31), (136, 128, 3, 3), {"pads": [1, 1, 1, 1]}, 4),
    ((1, 128, 30, 31), (128, 128, 3, 3), {"auto_pad": "SAME_UPPER"}, 4),
    ((1, 128, 31, 30), (128, 128, 3, 3), {"pads": [0, 2, 1, 0]}, 4),
    ((1, 128, 28, 28), (32, 128, 3, 3), {"pads": [1, 1, 1, 1]}, 4),
    ((2, 64, 29, 31), (40, 64, 3, 3), {"pads": [1, 0, 2, 1]}, 4),
    # F(2x2): from 14x14 outputs, 512 channels each way; uneven maps.
    ((1, 512, 16, 17), (513, 512, 3, 3), {"auto_pad": "VALID"}, 2),
    ((1, 512, 14, 15), (512, 512, 3, 3), {"pads": [1, 1, 1, 1]}, 2),
])
def test_conv_winograd(x_shape, w_shape, attrs, tile):
    # Positive data: with 128 * 9 standard-normal terms per output, cancellation leaves outputs
    # near 0 that no fp32 summation order (im2col's sgemm included) gets to within 1e-5 of the
    # evaluator's; test_winograd_error_like_im2col covers such data.
    x, w = np.abs(rand(*x_shape)), np.abs(rand(*w_shape, seed=1))
    b = rand(w_shape[0], seed=2)
    g = nn._geometry(x.shape[2:], w.shape[2:], None, None, attrs.get("pads"),
                     attrs.get("auto_pad", "NOTSET"))
    assert nn._winograd_tile(x, w, g, 1) == tile
    want = reference("Conv", [x, w, b], OPSET, 1, **attrs)
    check_kernel("Conv", [x, w, b], OPSET, want, rtol=1e-4, atol=1e-5, **attrs)


def atol(tile: int, want: np.ndarray) -> float:
    """F(4x4)'s rounding grows with the outputs' scale (see test_winograd_error_bounded)."""
    return 1e-5 if tile == 2 else 1e-5 * max(1.0, float(np.abs(want).max()))


@pytest.mark.parametrize("tile", [2, 4])
@pytest.mark.parametrize("x_shape, w_shape, pads", [
    # Small maps (the band loop, odd sizes, edge crops) through the path directly.
    ((2, 16, 7, 9), (20, 16, 3, 3), [1, 1, 1, 1]),
    ((1, 32, 9, 6), (16, 32, 3, 3), [0, 0, 0, 0]),
    ((1, 16, 6, 7), (16, 16, 3, 3), [0, 1, 2, 0]),
    ((3, 16, 5, 5), (16, 16, 3, 3), [2, 2, 2, 2]),
])
def test_winograd_conv_direct(x_shape, w_shape, pads, tile):
    x, w, b = rand(*x_shape), rand(*w_shape, seed=1), rand(w_shape[0], seed=2)
    g = nn._geometry(x.shape[2:], w.shape[2:], None, None, pads)
    want = reference("Conv", [x, w, b], OPSET, 1, pads=pads)[0]
    got = winograd.winograd_conv(x, w, b, g.begin, g.out, tile)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=atol(tile, want))
    out = np.full(want.shape, np.nan, np.float32)  # into a given buffer, every element written
    assert winograd.winograd_conv(x, w, b, g.begin, g.out, tile, out) is out
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=atol(tile, want))


@pytest.mark.parametrize("tile", [2, 4])
def test_winograd_conv_bands(tile):
    # More tile rows than one band holds: the bands must stitch seamlessly.
    x, w = np.abs(rand(1, 64, 113, 115)), np.abs(rand(64, 64, 3, 3, seed=1))  # see above
    g = nn._geometry(x.shape[2:], w.shape[2:], None, None, [1, 1, 1, 1])
    tile_row = (tile + 2) ** 2 * 64 * (-(-115 // tile) + 1)
    assert max(winograd._BAND // tile_row, -(-winograd._MIN_COLUMNS // tile_row)) < 113 // tile
    want = reference("Conv", [x, w], OPSET, 1, pads=[1, 1, 1, 1])[0]
    got = winograd.winograd_conv(x, w, None, g.begin, g.out, tile)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_winograd_error_bounded():
    # Standard-normal data, against float64 truth: F(2x2) no worse than 1.5x the im2col path's
    # error; F(4x4), whose transforms have larger coefficients, within 1e-4 of the outputs'
    # scale (ONNX's tolerance is 1e-3).
    x, w = rand(1, 128, 29, 28), rand(128, 128, 3, 3, seed=1)
    g = nn._geometry(x.shape[2:], w.shape[2:], None, None, [1, 1, 1, 1])
    exact = reference("Conv", [x.astype(np.float64), w.astype(np.float64)], OPSET, 1,
                      pads=[1, 1, 1, 1])[0]
    cols = nn._windows(nn._padded(x, g, 0), g).reshape(128 * 9, -1)
    im2col = (w.reshape(128, -1) @ cols).reshape(exact.shape)
    f2 = winograd.winograd_conv(x, w, None, g.begin, g.out, 2)
    assert np.abs(f2 - exact).max() <= 1.5 * np.abs(im2col - exact).max()
    f4 = winograd.winograd_conv(x, w, None, g.begin, g.out, 4)
    assert np.abs(f4 - exact).max() <= 1e-4 * np.abs(exact).max()


@pytest.mark.parametrize("tile", [2, 4])
def test_winograd_reads_no_memory_it_did_not_write(monkeypatch, tile):
    """The transforms' buffers come from np.empty; an inf left there by earlier work must not
    reach an operation (it warned 'invalid value encountered', at random, in bench_exec)."""
    x, w = rand(1, 16, 8, 10), rand(16, 16, 3, 3, seed=1)
    g = nn._geometry(x.shape[2:], w.shape[2:], None, None, [1, 1, 1, 1])
    want = reference("Conv", [x, w], OPSET, 1, pads=[1, 1, 1, 1])[0]
    empty = np.empty

    def stale(shape, dtype=float, **kw):
        buffer = empty(shape, dtype, **kw)
        buffer.fill(np.inf)   # what inf - inf makes a NaN of, as the warning saw
        return buffer
    monkeypatch.setattr(nn.np, "empty", stale)
    with np.errstate(invalid="raise"):
        got = winograd.winograd_conv(x, w, None, g.begin, g.out, tile)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=atol(tile, want))
