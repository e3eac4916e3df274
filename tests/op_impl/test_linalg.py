"""Gemm and MatMul against onnx's ReferenceEvaluator."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kernel_oracle import check_kernel, derandomized, onnxruntime, reference, run_kernel
from npu_emu.op_impl import get_kernel

RTOL, ATOL = 1e-4, 1e-5
HYPOTHESIS = derandomized(max_examples=200)


def check(op: str, inputs: list[np.ndarray | None], attrs: dict, opset: int) -> None:
    check_kernel(op, inputs, opset, reference(op, inputs, opset, **attrs), rtol=RTOL, atol=ATOL,
                 **attrs)


def rand(*shape: int, seed: int = 0, dtype=np.float32) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        low = 0 if np.issubdtype(dtype, np.unsignedinteger) else -5
        return rng.integers(low, 6, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


# --- Gemm -----------------------------------------------------------------------------------

def gemm_inputs(m: int, k: int, n: int, trans_a: int, trans_b: int, c_shape, dtype=np.float32):
    a = rand(*((k, m) if trans_a else (m, k)), dtype=dtype)
    b = rand(*((n, k) if trans_b else (k, n)), seed=1, dtype=dtype)
    c = None if c_shape is None else rand(*c_shape, seed=2, dtype=dtype)
    return [a, b, c]


def c_shapes(m: int, n: int) -> list:
    """Every C shape that broadcasts unidirectionally to (M, N)."""
    return [(), (1,), (n,), (1, n), (m, 1), (1, 1), (m, n)]


@given(st.integers(1, 5), st.integers(1, 5), st.integers(1, 5), st.integers(0, 1),
       st.integers(0, 1), st.sampled_from([None, 0, 1, 2, 3, 4, 5, 6]),
       st.sampled_from([1.0, 0.5, -2.0]), st.sampled_from([1.0, 0.0, 0.25]),
       st.sampled_from([7, 9, 11, 13]))
@HYPOTHESIS
def test_gemm(m, k, n, trans_a, trans_b, c_choice, alpha, beta, opset):
    if c_choice is None and opset < 11:  # C is optional only from version 11
        c_choice = 6
    c_shape = None if c_choice is None else c_shapes(m, n)[c_choice]
    attrs = {"alpha": alpha, "beta": beta, "transA": trans_a, "transB": trans_b}
    check("Gemm", gemm_inputs(m, k, n, trans_a, trans_b, c_shape), attrs, opset)


@pytest.mark.parametrize("opset", [1, 6])
@pytest.mark.parametrize("c_shape, broadcast", [
    ((3, 4), 0), ((3, 4), 1), ((4,), 1), ((1, 4), 1), ((3, 1), 1), ((), 1)])
def test_gemm_6_broadcast_attribute(opset, c_shape, broadcast):
    # Versions 1 and 6 compute what version 7 does once C's shape is accepted. The evaluator
    # has no Gemm-1, and its Gemm-6 drops beta when broadcast=0: version 7 is the oracle.
    inputs = gemm_inputs(3, 5, 4, 0, 1, c_shape)
    attrs = {"alpha": 0.5, "beta": 2.0, "transB": 1}
    check_kernel("Gemm", inputs, opset, reference("Gemm", inputs, 7, **attrs), rtol=RTOL,
                 atol=ATOL, **attrs, broadcast=broadcast)


def test_gemm_6_without_broadcast_needs_full_c():
    with pytest.raises(ValueError, match="broadcast=0"):
        get_kernel("Gemm", 6)(*gemm_inputs(3, 5, 4, 0, 0, (4,)))


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.int64])
def test_gemm_other_types(dtype):
    check("Gemm", gemm_inputs(3, 4, 2, 1, 0, (2,), dtype), {"transA": 1}, 13)


def test_gemm_fully_connected_layer():
    # The classifier of VGG/AlexNet: transB=1 weights, a bias row.
    check("Gemm", gemm_inputs(2, 512, 100, 0, 1, (100,)), {"transB": 1}, 9)


# --- MatMul ---------------------------------------------------------------------------------

@pytest.mark.parametrize("a_shape, b_shape", [
    ((4,), (4,)),
    ((4,), (4, 3)),
    ((2, 4), (4,)),
    ((3, 4), (4, 5)),
    ((2, 3, 4), (4, 5)),
    ((4,), (2, 4, 5)),
    ((2, 3, 4), (4,)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((1, 3, 4), (6, 4, 2)),
])
@pytest.mark.parametrize("opset", [1, 9, 13])
def test_matmul(a_shape, b_shape, opset):
    check("MatMul", [rand(*a_shape), rand(*b_shape, seed=1)], {}, opset)


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.int64, np.uint32])
def test_matmul_other_types(dtype):
    check("MatMul", [rand(2, 3, 4, dtype=dtype), rand(4, 2, seed=1, dtype=dtype)], {}, 13)


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16], ids=["float16", "bfloat16"])
def test_det_of_half_precision_is_the_float_det_rounded(dtype):
    """numpy's linalg takes no half precision ("array type float16 is unsupported in linalg"):
    the determinant goes through float32, as onnxruntime computes it for float, then rounds."""
    x = np.array([[[2.0, 1.0], [0.5, 3.0]], [[1.0, 2.0], [3.0, 4.0]]], dtype)
    (want,) = onnxruntime("Det", [x.astype(np.float32)], 11)
    (got,) = run_kernel("Det", [x], 11)
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got, want.astype(dtype))
