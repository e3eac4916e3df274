"""Kernels that write straight into the device's output buffer (``writes_out``): the same numbers
as without, the very buffer handed back when it fits, and a fresh array when it does not (wrong
shape or dtype, or an overlap with an input the kernel reads after its first write)."""
from __future__ import annotations

import numpy as np
import pytest

from npu_emu.op_impl import get_kernel, known_ops
from npu_emu.op_impl.in_place import fits


def randn(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


BN_PARAMS = [np.abs(randn(8, seed=s)) + 0.5 for s in (1, 2, 3, 4)]

CASES = {
    "Relu": ([randn(2, 8, 5, 5)], {}),
    "Add": ([randn(2, 8, 5, 5), randn(8, 1, 1, seed=1)], {}),
    "Sub": ([randn(2, 8, 5, 5), randn(2, 8, 5, 5, seed=1)], {}),
    "Mul": ([randn(2, 8, 5, 5), randn(1, 8, 1, 1, seed=1)], {}),
    "Sum": ([randn(2, 8, 5, 5), randn(2, 8, 5, 5, seed=1), randn(5, seed=2)], {}),
    "Transpose": ([randn(2, 8, 5, 3)], {"perm": [0, 2, 3, 1]}),
    "Concat": ([randn(2, 3, 5), randn(2, 4, 5, seed=1)], {"axis": 1}),
    "Conv": ([randn(1, 8, 9, 9), randn(6, 8, 3, 3, seed=1), randn(6, seed=2)],
             {"pads": [1, 1, 1, 1]}),
    "FusedConv": ([randn(1, 8, 9, 9), randn(6, 8, 3, 3, seed=1)],
                  {"activation": "Relu", "strides": [2, 2]}),
    "BatchNormalization": ([randn(2, 8, 5, 5), *BN_PARAMS], {}),
    "FusedBatchNormRelu": ([randn(2, 8, 5, 5), *BN_PARAMS], {}),
    "MaxPool": ([randn(1, 8, 11, 11)], {"kernel_shape": [3, 3], "strides": [2, 2],
                                        "pads": [1, 1, 1, 1]}),
    "AveragePool": ([randn(1, 8, 11, 10)], {"kernel_shape": [3, 2], "strides": [2, 1],
                                            "pads": [1, 0, 1, 1]}),
}
WINOGRAD = ([np.abs(randn(1, 128, 28, 28)), np.abs(randn(128, 128, 3, 3, seed=1))],
            {"pads": [1, 1, 1, 1]})


def test_every_writes_out_kernel_is_covered():
    writers = {op for op in known_ops() if getattr(get_kernel(op), "writes_out", False)}
    assert writers == set(CASES)


@pytest.mark.parametrize("op", sorted(CASES))
def test_writes_into_a_fitting_buffer(op):
    inputs, attrs = CASES[op]
    (want,) = get_kernel(op)(*inputs, **attrs)
    out = np.full(want.shape, np.nan, want.dtype)
    (got,) = get_kernel(op)(*inputs, out=(out,), **attrs)
    assert got is out
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)


def test_winograd_conv_writes_its_tiles_into_the_buffer():
    inputs, attrs = WINOGRAD
    (want,) = get_kernel("Conv")(*inputs, **attrs)
    out = np.empty_like(want)
    assert get_kernel("Conv")(*inputs, out=(out,), **attrs)[0] is out
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-5)


def test_shifted_im2col_conv_writes_into_the_buffer_and_adds_its_bias():
    # a grouped stride-1 3x3 conv: columns from _shifted_columns, the product into the buffer
    x, w, b = randn(1, 8, 9, 9), randn(6, 4, 3, 3, seed=1), randn(6, seed=2)
    attrs = {"group": 2, "pads": [1, 1, 1, 1]}
    want = get_kernel("Conv")(x, w, **attrs)[0] + b.reshape(6, 1, 1)
    out = np.full_like(want, np.nan)
    assert get_kernel("Conv")(x, w, b, out=(out,), **attrs)[0] is out
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(get_kernel("Conv")(x, w, b, **attrs)[0], want, rtol=1e-6,
                               atol=1e-6)


@pytest.mark.parametrize("over_z", [False, True])
def test_fused_conv_adds_z_into_the_buffer_even_where_the_buffer_is_z(over_z):
    # the memory assigner may give a FusedConv's output Z's memory, Z's last reader being it
    x, w, b, z = randn(1, 8, 9, 9), randn(6, 8, 3, 3, seed=1), randn(6, seed=2), \
        randn(1, 6, 9, 9, seed=3)
    want = np.maximum(get_kernel("Conv")(x, w, b, pads=[1, 1, 1, 1])[0] + z, 0)
    out = z.copy() if over_z else np.full_like(z, np.nan)
    got = get_kernel("FusedConv")(x, w, b, out if over_z else z, out=(out,), activation="Relu",
                                  pads=[1, 1, 1, 1])[0]
    assert got is out
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("op", sorted(CASES))
def test_a_buffer_that_does_not_fit_is_left_alone(op):
    inputs, attrs = CASES[op]
    (want,) = get_kernel(op)(*inputs, **attrs)
    wrong = np.zeros(want.shape, np.float64)  # the right shape, another dtype (see test_fits)
    (got,) = get_kernel(op)(*inputs, out=(wrong,), **attrs)
    assert got is not wrong and not wrong.any()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


# where CASES' output has no input's shape, a case where it has
SAME_SHAPE = {
    "Transpose": ([randn(2, 5, 5)], {"perm": [0, 2, 1]}),
    "Concat": ([randn(2, 3, 5), np.zeros((2, 0, 5), np.float32)], {"axis": 1}),
    "Conv": ([randn(1, 8, 9, 9), randn(8, 8, 3, 3, seed=1), randn(8, seed=2)],
             {"pads": [1, 1, 1, 1]}),
    "FusedConv": ([randn(1, 8, 9, 9), randn(8, 8, 3, 3, seed=1), randn(8, seed=2),
                   randn(1, 8, 9, 9, seed=3)], {"activation": "Relu", "pads": [1, 1, 1, 1]}),
    "MaxPool": ([randn(1, 8, 11, 11)], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}),
    "AveragePool": ([randn(1, 8, 11, 10)], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}),
}


@pytest.mark.parametrize("op", sorted(CASES))
def test_the_buffer_may_be_any_input_of_the_outputs_shape(op):
    # the device's memory planner, and the host executor, may hand a kernel an input it reads
    # for the last time as its output buffer: the numbers are those of a fresh output
    inputs, attrs = SAME_SHAPE.get(op, CASES[op])
    (want,) = get_kernel(op)(*inputs, **attrs)
    aliased = [i for i, x in enumerate(inputs) if (x.shape, x.dtype) == (want.shape, want.dtype)]
    assert aliased
    for i in aliased:
        given = [x.copy() for x in inputs]
        (got,) = get_kernel(op)(*given, out=(given[i],), **attrs)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=f"over input {i}")


def test_sum_does_not_overwrite_an_input_it_still_reads():
    a, b, c = randn(4, 6), randn(4, 6, seed=1), randn(4, 6, seed=2)
    want = a + b + c
    (got,) = get_kernel("Sum")(a, b, c, out=(c,))  # the planner gave out c's address
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_a_sum_of_many_inputs_asks_once_which_one_its_output_holds(monkeypatch):
    """Each add asked whether the output lies over any input still to come: a Sum of N inputs
    asked N^2 / 2 times (8000 inputs, 32M). Now once an input, and the result is the same."""
    xs = [randn(3, seed=i) for i in range(400)]
    out = xs[200].copy()
    given = [*xs[:200], out, *xs[201:]]   # the planner gave out the 201st input's address
    asked = []
    share = np.may_share_memory
    monkeypatch.setattr(np, "may_share_memory", lambda a, b: asked.append(1) or share(a, b))
    (got,) = get_kernel("Sum")(*given, out=(out,))
    np.testing.assert_allclose(got, np.sum(xs, axis=0), rtol=1e-5)
    assert len(asked) <= 2 * len(xs)


def test_conv_into_its_own_input_buffer_falls_back():
    x, w = randn(1, 4, 6, 6), randn(4, 4, 1, 1, seed=1)
    want = get_kernel("Conv")(x, w)[0]
    (got,) = get_kernel("Conv")(x, w, out=(x,))
    assert got is not x
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_fits():
    out = np.empty((2, 3), np.float32)
    assert fits(out, (2, 3), np.dtype(np.float32)) is out
    assert fits(out, (3, 2), np.dtype(np.float32)) is None
    assert fits(out, (2, 3), np.dtype(np.float64)) is None
    assert fits(out.T, (3, 2), np.dtype(np.float32)) is None  # not contiguous
    assert fits(out, (2, 3), np.dtype(np.float32), out[1]) is None
    assert fits(None, (2, 3), np.dtype(np.float32)) is None


def test_batch_norm_does_not_write_over_a_parameter_it_still_reads():
    x = randn(1, 4, 2, 2)
    scale, mean = np.ones(4, np.float32), randn(4, seed=1) * 0.1
    var = np.ones(4, np.float32)
    buf = np.zeros(16, np.float32)
    out, b = buf.reshape(1, 4, 2, 2), buf[:4]   # b lies inside the output buffer
    b[:] = randn(4, seed=2)
    want = get_kernel("BatchNormalization", 15)(x, scale, b.copy(), mean, var)[0]
    (got,) = get_kernel("BatchNormalization", 15)(x, scale, b, mean, var, out=(out,))
    assert got is not out
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("op", ["FusedBatchNormRelu", "FusedConv"])
def test_a_fused_activation_acts_on_an_input_laid_out_as_a_view(op):
    """A transposed input (the host's Transpose hands back a view) keeps its strides through a
    BatchNorm's arithmetic: the Relu, which acts in place only on a C-ordered array, had left
    FusedBatchNormRelu's result unrectified (a random graph against onnxruntime found it)."""
    inputs, attrs = CASES[op]
    x = np.ascontiguousarray(inputs[0].transpose(0, 1, 3, 2)).transpose(0, 1, 3, 2)
    assert not x.flags.c_contiguous
    (got,) = get_kernel(op)(x, *inputs[1:], **attrs)
    base = "BatchNormalization" if op == "FusedBatchNormRelu" else "Conv"
    attrs = {k: v for k, v in attrs.items() if k != "activation"}
    want = np.maximum(get_kernel(base)(inputs[0], *inputs[1:], **attrs)[0], 0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
