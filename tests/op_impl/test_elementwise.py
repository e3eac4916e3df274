"""Elementwise kernels against onnx's ReferenceEvaluator on one-node models, at the opsets the
onnx test data uses (6, 9, ...) and the current ones. Where the reference evaluator cannot run an
old form (the pre-7 `broadcast`/`axis` attrs, Selu-1's defaults) the expected
value is derived by hand next to the test."""
from __future__ import annotations

import math
from functools import partial

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

from kernel_oracle import check_kernel, derandomized, reference
from npu_emu.op_impl import get_kernel

RNG = np.random.default_rng(0)
# The kernel of ``op`` at ``opset`` gives ``expected`` (default: the reference's outputs).
check = partial(check_kernel, rtol=1e-5, atol=1e-6)


def randn(*shape: int, dtype=np.float32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


# --- unary ---------------------------------------------------------------------------------

POSITIVE = {"Log", "Sqrt", "Reciprocal"}  # keep off NaN/inf, which the comparison would hide
UNARY = ["Abs", "Neg", "Exp", "Log", "Sqrt", "Reciprocal", "Floor", "Ceil", "Tanh", "Relu",
         "Sigmoid", "Softplus", "Softsign", "Identity"]


@pytest.mark.parametrize("opset", [6, 13])
@pytest.mark.parametrize("op", UNARY)
def test_unary(op: str, opset: int) -> None:
    x = 3 * randn(3, 4, 5)
    check(op, [np.abs(x) + 0.1 if op in POSITIVE else x], opset)


@pytest.mark.parametrize("op", ["Sign", "Erf"])
@pytest.mark.parametrize("opset", [9, 13])
def test_unary_opset9(op: str, opset: int) -> None:
    x = 2 * randn(4, 5)
    x[0, :2] = 0
    check(op, [x], opset)


@pytest.mark.parametrize("dtype", [np.float16, np.float64])
@pytest.mark.parametrize("op", ["Exp", "Sigmoid", "Erf", "Softsign", "Relu"])
def test_unary_keeps_dtype(op: str, dtype: type) -> None:
    check(op, [randn(2, 3, dtype=dtype)], 13, rtol=1e-3 if dtype == np.float16 else 1e-7)


def test_scalar_input_gives_array() -> None:
    # ufuncs turn 0-d arrays into numpy scalars; kernels must still return arrays
    check("Exp", [np.array(0.5, np.float32)], 13)
    check("Add", [np.array(1, np.int64), np.array(2, np.int64)], 14)


def test_sigmoid_and_softplus_do_not_overflow() -> None:
    x = np.array([-1000, -100, 0, 100, 1000], np.float32)
    with np.errstate(over="raise", invalid="raise"):
        (s,), (p,) = get_kernel("Sigmoid")(x), get_kernel("Softplus")(x)
    np.testing.assert_allclose(s, [0, 0, 0.5, 1, 1], atol=1e-30)
    np.testing.assert_allclose(p, [0, 0, math.log(2), 100, 1000], rtol=1e-6, atol=1e-30)


def test_not() -> None:
    check("Not", [RNG.random((3, 4)) > 0.5], 1)


# --- activations with attributes ------------------------------------------------------------

ACTIVATION_ATTRS = {
    "LeakyRelu": [{}, {"alpha": 0.2}],
    "Elu": [{}, {"alpha": 0.5}],
    "Selu": [{}, {"alpha": 2.0, "gamma": 3.0}],
    "HardSigmoid": [{}, {"alpha": 0.5, "beta": 0.25}],
    "Shrink": [{}, {"bias": 1.5, "lambd": 1.0}],
}


@pytest.mark.parametrize("opset", [6, 22])
@pytest.mark.parametrize("op,attrs", [(op, a) for op, attrs in ACTIVATION_ATTRS.items()
                                      for a in attrs])
def test_activation(op: str, attrs: dict, opset: int) -> None:
    check(op, [3 * randn(3, 4, 5)], max(opset, 9) if op == "Shrink" else opset, **attrs)


def test_shrink_int() -> None:
    check("Shrink", [np.arange(-5, 6, dtype=np.int32)], 9, bias=1.0, lambd=2.0)


def test_selu_1_has_rounded_defaults() -> None:
    # The reference evaluator applies Selu-6's defaults at every opset.
    x = randn(10)
    expected = 1.0507 * np.where(x > 0, x, 1.6732 * (np.exp(x) - 1))
    check("Selu", [x], 1, [expected.astype(np.float32)])


def test_numpy_scalar_attr_does_not_promote() -> None:
    (y,) = get_kernel("LeakyRelu", 6)(randn(3), alpha=np.float64(0.1))
    assert y.dtype == np.float32


def test_elu_large_input_does_not_overflow() -> None:
    with np.errstate(over="raise", invalid="raise"):
        (y,) = get_kernel("Elu", 6)(np.array([1000, -1000], np.float32))
    np.testing.assert_array_equal(y, [1000, -1])


# --- binary ---------------------------------------------------------------------------------

ARITHMETIC = ["Add", "Sub", "Mul", "Div"]
COMPARISON = ["Equal", "Less", "Greater"]
LOGICAL = ["And", "Or", "Xor"]


def binary_operands(op: str, shapes: tuple, dtype: type, rng: np.random.Generator) -> list:
    if op in LOGICAL:
        return [rng.random(s) > 0.5 for s in shapes]
    if op == "Pow":  # positive base: fractional powers of negatives are NaN
        return [rng.integers(1, 4, shapes[0]).astype(dtype),
                rng.uniform(-2, 2, shapes[1]).astype(dtype)]
    a, b = (rng.integers(-9, 10, s).astype(dtype) for s in shapes)
    if op == "Div":  # no division by zero; signs mixed to show truncation toward zero
        b = np.where(b == 0, 3, b).astype(dtype)
    return [a, b]


@derandomized(max_examples=60)
@given(op=st.sampled_from(ARITHMETIC + ["Pow"] + COMPARISON + LOGICAL),
       shapes=mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=4),
       dtype=st.sampled_from([np.float32, np.int32]), opset=st.sampled_from([7, 13, 14]),
       seed=st.integers(0, 2**16))
def test_binary_numpy_broadcast(op: str, shapes, dtype: type, opset: int, seed: int) -> None:
    inputs = binary_operands(op, shapes.input_shapes, dtype, np.random.default_rng(seed))
    if op == "Pow":
        inputs[1] = inputs[1].astype(np.float32)
    check(op, inputs, opset)


def test_integer_div_truncates_toward_zero() -> None:
    a, b = np.array([7, -7, 7, -7], np.int64), np.array([2, 2, -2, -2], np.int64)
    check("Div", [a, b], 14, [np.array([3, -3, -3, 3], np.int64)])


@pytest.mark.parametrize("base,exponent", [(np.float32, np.int64), (np.int32, np.float32),
                                           (np.int64, np.int64), (np.float32, np.float16)])
def test_pow_has_base_dtype(base: type, exponent: type) -> None:
    check("Pow", [np.arange(1, 7, dtype=base).reshape(2, 3), np.array([2, 0, 1], exponent)], 15)


LEGACY_OPSET = {**dict.fromkeys(ARITHMETIC, 6), "Pow": 1,
                **dict.fromkeys(COMPARISON + LOGICAL, 1)}


@pytest.mark.parametrize("op", list(LEGACY_OPSET))
def test_binary_legacy_same_shape(op: str) -> None:
    check(op, binary_operands(op, [(2, 3, 4)] * 2, np.float32, RNG), LEGACY_OPSET[op])


@pytest.mark.parametrize("op", list(LEGACY_OPSET))
@pytest.mark.parametrize("a_shape,b_shape,axis,b_aligned", [
    ((2, 3, 4, 5), (), None, ()),                   # scalar
    ((2, 3, 4, 5), (1, 1), None, (1, 1)),           # one element
    ((2, 3, 4, 5), (5,), None, (5,)),               # suffix
    ((2, 3, 4, 5), (4, 5), None, (4, 5)),
    ((2, 3, 4, 5), (3, 4), 1, (3, 4, 1)),           # from axis
    ((2, 3, 4, 5), (2,), 0, (2, 1, 1, 1)),
    ((2, 3, 4, 5), (3,), -3, (3, 1, 1)),
    ((2, 3), (2, 1), 0, (2, 1)),                    # size-1 dims stretch (PyTorch exports this)
])
def test_binary_legacy_broadcast(op: str, a_shape: tuple, b_shape: tuple, axis: int | None,
                                 b_aligned: tuple) -> None:
    # The reference evaluator rejects the `broadcast` attr: expected = numpy on b reshaped by hand.
    a, b = binary_operands(op, [a_shape, b_shape], np.float32, RNG)
    attrs = {"broadcast": 1} if axis is None else {"broadcast": 1, "axis": axis}
    (expected,) = get_kernel(op, 7)(a, b.reshape(b_aligned))
    check(op, [a, b], LEGACY_OPSET[op], [expected], **attrs)


def test_binary_legacy_rejects_mismatch() -> None:
    add = get_kernel("Add", 6)
    with pytest.raises(ValueError):
        add(randn(2, 3), randn(3))  # broadcast=0 needs equal shapes
    with pytest.raises(ValueError):
        add(randn(3), randn(2, 3), broadcast=1)  # only the right operand broadcasts


# --- PRelu, Clip ----------------------------------------------------------------------------

@pytest.mark.parametrize("x_shape,slope_shape", [
    ((2, 3, 4), (1,)), ((2, 3, 4), (3,)), ((2, 3, 4, 5), (3,)), ((2, 3, 4, 5, 6), (3,)),
    ((2, 3, 4), (2, 3, 4)), ((2, 3, 4, 5), (3, 1, 1))])
def test_prelu_6_per_channel(x_shape: tuple, slope_shape: tuple) -> None:
    # The reference finds the channel axis by matching the slope's length (unique here).
    check("PRelu", [randn(*x_shape), randn(*slope_shape)], 6)


@derandomized(max_examples=30)
@given(shapes=mutually_broadcastable_shapes(num_shapes=1, base_shape=(2, 3, 4), max_side=4),
       opset=st.sampled_from([7, 9, 16]))
def test_prelu_unidirectional(shapes, opset: int) -> None:
    x_shape = np.broadcast_shapes((2, 3, 4), shapes.input_shapes[0])
    check("PRelu", [randn(*x_shape), randn(*shapes.input_shapes[0])], opset)


def test_prelu_6_shares_one_slope_value_with_a_scalar_x() -> None:
    """A [1] slope is one value for every element, a scalar x's too (numpy would not broadcast
    [1] to a scalar): as opset 16's reference does with the value as a scalar slope."""
    x, slope = np.array(-2.0, np.float32), randn(1)
    expected = reference("PRelu", [x, slope.reshape(())], 16)
    check_kernel("PRelu", [x, slope], 6, expected, rtol=0, atol=0)


def test_prelu_slope_does_not_grow_x() -> None:
    with pytest.raises(ValueError):
        get_kernel("PRelu", 16)(randn(3), randn(2, 3))


@pytest.mark.parametrize("attrs", [{}, {"min": -0.5}, {"max": 0.5}, {"min": -0.5, "max": 0.5}])
def test_clip_6(attrs: dict) -> None:
    check("Clip", [randn(3, 4)], 6, **attrs)


@pytest.mark.parametrize("opset,dtype", [(11, np.float32), (12, np.int32), (13, np.float64)])
@pytest.mark.parametrize("bounds", [(None, None), (-1, None), (None, 1), (-1, 1)])
def test_clip_inputs(opset: int, dtype: type, bounds: tuple) -> None:
    x = (3 * randn(3, 4)).astype(dtype)
    check("Clip", [x] + [None if b is None else np.array(b, dtype) for b in bounds], opset)


# --- variadic -------------------------------------------------------------------------------

VARIADIC = ["Max", "Min", "Sum", "Mean"]


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("op", VARIADIC)
def test_variadic_6(op: str, n: int) -> None:
    check(op, [randn(2, 3) for _ in range(n)], 6)
    with pytest.raises(ValueError):  # no broadcasting before opset 8
        get_kernel(op, 6)(randn(2, 3), randn(3))


@derandomized(max_examples=30)
@given(op=st.sampled_from(VARIADIC), opset=st.sampled_from([8, 13]),
       shapes=mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=3))
def test_variadic_broadcast(op: str, opset: int, shapes) -> None:
    inputs = [randn(*s) for s in shapes.input_shapes]
    # The reference's Sum/Mean accumulate in place into the first input and so cannot grow it:
    # it gets the inputs already broadcast. Its Max/Min also turn 0-d results into shape (1,).
    (expected,) = reference(op, [np.array(x) for x in np.broadcast_arrays(*inputs)], opset)
    check(op, inputs, opset, [expected.reshape(shapes.result_shape)])


# --- logic, Where ---------------------------------------------------------------------------

@pytest.mark.parametrize("opset", [9, 16])
def test_where(opset: int) -> None:
    check("Where", [RNG.random((3, 1)) > 0.5, randn(1, 4), randn(3, 4)], opset)
    check("Where", [RNG.random(4) > 0.5, np.arange(4), np.array(-1)], opset)
