"""Broadcasting ufuncs run row by row (npu_emu.op_impl.broadcast): the same numbers, numpy's
buffer size left as it was."""
from __future__ import annotations

import numpy as np
import pytest

from npu_emu.op_impl import get_kernel
from npu_emu.op_impl.broadcast import repeated_run, row_by_row


@pytest.mark.parametrize("a, b, run", [
    ((1, 64, 56, 56), (64, 1, 1), 56 * 56),    # a per-channel vector: rows of a map
    ((1, 64, 56, 56), (1, 64, 56, 56), 1),     # nothing repeats
    ((4, 3), (3,), 1),                         # repeats along the outer axis only
    ((2, 3, 1), (1, 3, 5), 5),
    ((8, 10), (), 80),                         # a scalar repeats over everything
])
def test_repeated_run(a, b, run):
    assert repeated_run(np.zeros(a), np.zeros(b)) == run


def test_repeated_run_sees_zero_strides():
    x = np.zeros((1, 64, 56, 56))
    assert repeated_run(x, np.zeros(x.shape)) == 1   # worked out once per layout: strides too
    assert repeated_run(x, np.broadcast_to(np.zeros((64, 1, 1)), x.shape)) == 56 * 56


def test_row_by_row_scopes_the_buffer_size():
    before = np.getbufsize()
    with row_by_row(3136):
        assert np.getbufsize() == 3136
    with row_by_row(49), row_by_row(1 << 20):  # short rows and long ones are left alone
        assert np.getbufsize() == before
    assert np.getbufsize() == before
    with pytest.raises(ValueError), row_by_row(784):   # a kernel that raises restores it
        with row_by_row(3136):
            raise ValueError("a bad input")
    assert np.getbufsize() == before


@pytest.mark.parametrize("op, fn", [("Mul", np.multiply), ("Add", np.add), ("Sub", np.subtract)])
@pytest.mark.parametrize("opset", [6, 14])
def test_binary_ops_row_by_row_give_numpys_numbers(op, fn, opset):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 64, 30, 30), np.float32)
    v = rng.standard_normal((64, 1, 1), np.float32)
    before = np.getbufsize()
    attrs = {"broadcast": 1} if opset < 7 else {}
    (got,) = get_kernel(op, opset)(x, v, **attrs)
    assert np.getbufsize() == before
    np.testing.assert_array_equal(got, fn(x, v))


@pytest.mark.parametrize("shape", [(1, 256, 56, 56), (2, 64, 7, 7), (1, 8, 100, 3)])
def test_per_channel_ops_leave_numpy_buffer_size(shape):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape, np.float32)
    c = shape[1]
    scale, b, mean = (rng.random(c, np.float32) for _ in range(3))
    var = rng.random(c, np.float32) + 0.1
    before = np.getbufsize()
    (y,) = get_kernel("BatchNormalization", 15)(x, scale, b, mean, var)
    assert np.getbufsize() == before
    shape_c = (1, c, 1, 1)
    want = (x.astype(np.float64) - mean.reshape(shape_c)) / np.sqrt(var.reshape(shape_c) + 1e-5)
    want = want * scale.reshape(shape_c) + b.reshape(shape_c)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


