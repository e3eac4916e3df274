"""Reduction kernels against onnx's ReferenceEvaluator on one-node models, across the attr and
input forms of `axes` and every keepdims / noop_with_empty_axes combination. Softmax, LogSoftmax
and Hardmax before opset 13 are checked against onnxruntime: the reference evaluator normalises
over the single `axis` at every opset, which is wrong for opsets 1-12 (they flatten the trailing
dims)."""
from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kernel_oracle import check_kernel, derandomized, onnxruntime, reference
from npu_emu.op_impl import get_kernel

RNG = np.random.default_rng(0)
# The kernel of ``op`` at ``opset`` gives ``expected`` (default: the reference's outputs).
check = partial(check_kernel, rtol=1e-5, atol=1e-6)


# --- Reduce* --------------------------------------------------------------------------------

# op -> opset where `axes` became an input (and noop_with_empty_axes appeared)
AXES_INPUT_SINCE = {"ReduceSum": 13, "ReduceMean": 18, "ReduceMax": 18, "ReduceMin": 18,
                    "ReduceProd": 18, "ReduceL1": 18, "ReduceL2": 18, "ReduceSumSquare": 18,
                    "ReduceLogSum": 18, "ReduceLogSumExp": 18}
AXES = [None, [1], [-1], [0, 2], [2, 0, 1]]


def reduce_input(op: str, dtype: type = np.float32) -> np.ndarray:
    if op == "ReduceLogSum":  # log of a positive sum
        return RNG.uniform(0.1, 2, (3, 4, 5)).astype(dtype)
    if op == "ReduceProd":  # keep the product of up to 60 values in range
        return RNG.uniform(0.8, 1.25, (3, 4, 5)).astype(dtype)
    return (3 * RNG.standard_normal((3, 4, 5))).astype(dtype)


@pytest.mark.parametrize("keepdims", [None, 0, 1])
@pytest.mark.parametrize("axes", AXES)
@pytest.mark.parametrize("opset", [1, 11])
@pytest.mark.parametrize("op", list(AXES_INPUT_SINCE))
def test_reduce_axes_attr(op: str, opset: int, axes: list | None, keepdims: int | None) -> None:
    attrs = {k: v for k, v in {"axes": axes, "keepdims": keepdims}.items() if v is not None}
    check(op, [reduce_input(op)], opset, **attrs)


@pytest.mark.parametrize("noop", [None, 0, 1])
@pytest.mark.parametrize("keepdims", [0, 1])
@pytest.mark.parametrize("axes", AXES + [[]])
@pytest.mark.parametrize("op", list(AXES_INPUT_SINCE))
def test_reduce_axes_input(op: str, axes: list | None, keepdims: int, noop: int | None) -> None:
    attrs = {k: v for k, v in {"keepdims": keepdims, "noop_with_empty_axes": noop}.items()
             if v is not None}
    axes_input = None if axes is None else np.array(axes, np.int64)
    check(op, [reduce_input(op), axes_input], AXES_INPUT_SINCE[op], **attrs)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float16, np.float64])
@pytest.mark.parametrize("op", ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                                "ReduceProd", "ReduceSumSquare", "ReduceL1"])
def test_reduce_keeps_dtype(op: str, dtype: type) -> None:
    # numpy sums int32 as int64 and means ints as float64; ONNX keeps the input's dtype
    x = (RNG.integers(-3, 4, (3, 4, 5)) if dtype in (np.int32, np.int64)
         else reduce_input(op)).astype(dtype)
    # The reference's ReduceSumSquare leaks numpy's int64 for int32 input; ONNX keeps the type.
    expected = [e.astype(dtype) for e in reference(op, [x], 11, axes=[1], keepdims=0)]
    # float16 holds 3 significant digits: a mean near 0 of values near 3 differs by a unit
    # of the inputs' last place, not of its own (the data is RNG's next, whichever test ran)
    half = dtype == np.float16
    check(op, [x], 11, expected, rtol=1e-2 if half else 1e-5, atol=1e-2 if half else 1e-6,
          axes=[1], keepdims=0)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # ReduceMean's 0/0, ReduceLogSum's log(0)
@pytest.mark.parametrize("op", list(AXES_INPUT_SINCE))
def test_reduce_empty_set(op: str) -> None:
    # Reducing a zero-size axis gives the op's identity (0, 1, -inf, inf, log(0), nan for Mean).
    check(op, [np.zeros((2, 0, 4), np.float32), np.array([1], np.int64)], 20)


def test_reduce_max_bool() -> None:
    x = RNG.random((3, 4)) > 0.7
    check("ReduceMax", [x, np.array([1], np.int64)], 20, keepdims=0)
    check("ReduceMin", [x, np.array([0], np.int64)], 20)


def test_reduce_log_sum_exp_is_stable() -> None:
    x = np.array([[1000, 1000], [-1000, -1000]], np.float32)
    (y,) = get_kernel("ReduceLogSumExp", 18)(x, np.array([1]), keepdims=0)
    np.testing.assert_allclose(y, [1000 + np.log(2), -1000 + np.log(2)], rtol=1e-6)


# --- ArgMax / ArgMin ------------------------------------------------------------------------

@derandomized(max_examples=60)
@given(op=st.sampled_from(["ArgMax", "ArgMin"]), opset=st.sampled_from([1, 11, 12, 13]),
       axis=st.integers(-3, 2), keepdims=st.sampled_from([None, 0, 1]),
       last=st.sampled_from([None, 0, 1]), seed=st.integers(0, 2**16))
def test_arg_extreme(op: str, opset: int, axis: int, keepdims: int | None, last: int | None,
                     seed: int) -> None:
    if opset == 1:
        axis = axis % 3  # negative axes came with opset 11
    attrs = {k: v for k, v in {"axis": axis, "keepdims": keepdims,
                               "select_last_index": last if opset >= 12 else None}.items()
             if v is not None}
    x = np.random.default_rng(seed).integers(0, 3, (3, 4, 5)).astype(np.float32)  # many ties
    check(op, [x], opset, **attrs)


# --- Softmax / LogSoftmax / Hardmax ---------------------------------------------------------

NORMALIZERS = ["Softmax", "LogSoftmax", "Hardmax"]


def normalizer_input(op: str) -> np.ndarray:
    if op == "Hardmax":  # integers: ties, where the first maximum must win
        return RNG.integers(0, 3, (2, 3, 4)).astype(np.float32)
    return (3 * RNG.standard_normal((2, 3, 4))).astype(np.float32)


@pytest.mark.parametrize("axis", [None, -3, -1, 0, 1, 2])
@pytest.mark.parametrize("opset", [13])
@pytest.mark.parametrize("op", NORMALIZERS)
def test_normalizer_over_axis(op: str, opset: int, axis: int | None) -> None:
    check(op, [normalizer_input(op)], opset, **({} if axis is None else {"axis": axis}))


@pytest.mark.parametrize("axis", [None, 0, 1, 2, -1])
@pytest.mark.parametrize("opset", [6, 9, 11])
@pytest.mark.parametrize("op", NORMALIZERS)
def test_normalizer_over_flattened_tail(op: str, opset: int, axis: int | None) -> None:
    x = normalizer_input(op)
    attrs = {} if axis is None else {"axis": axis}
    check(op, [x], opset, onnxruntime(op, [x], opset, **attrs), **attrs)


@pytest.mark.parametrize("opset", [6, 13])
@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
def test_softmax_is_stable(op: str, opset: int) -> None:
    x = np.array([[1000, 1000, -1000], [-1000, -1000, 0]], np.float32)
    with np.errstate(over="raise", invalid="raise"):
        (y,) = get_kernel(op, opset)(x, axis=1)
    log_p = np.array([[np.log(0.5)] * 2 + [-2000 - np.log(2)], [-1000, -1000, 0]])
    np.testing.assert_allclose(y, log_p.astype(np.float32) if op == "LogSoftmax"
                               else np.exp(log_p).astype(np.float32), rtol=1e-6, atol=1e-30)


@pytest.mark.parametrize("op, opset", [("Softmax", 11), ("Softmax", 13), ("LogSoftmax", 13),
                                       ("Hardmax", 13), ("SplitToSequence", 11)])
def test_an_axis_past_the_rank_is_refused_in_the_ops_words(op, opset):
    """A model may hold any int64 as an axis (the fuzzer's mutated ONNX and OM files): numpy's
    own refusal spoke of a C int, Python's of a tuple index."""
    kernel = get_kernel(op, opset)
    for axis in (2**32 - 1, 2**40, -3):
        with pytest.raises(ValueError, match=rf"^axis {axis} is out of range for a 2-d input$"):
            kernel(np.ones((2, 3), np.float32), axis=axis)
