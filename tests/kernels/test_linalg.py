"""Gemm and MatMul against onnx's ReferenceEvaluator."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import helper
from onnx.reference import ReferenceEvaluator

from npu_emu.kernels.registry import get_kernel

RTOL, ATOL = 1e-4, 1e-5
HYPOTHESIS = settings(max_examples=200, deadline=None, derandomize=True, database=None)


def expected(op: str, inputs: list[np.ndarray | None], attrs: dict, opset: int) -> np.ndarray:
    """``op`` run as a one-node model by the evaluator."""
    names = [f"in{i}" if a is not None else "" for i, a in enumerate(inputs)]
    graph = helper.make_graph(
        [helper.make_node(op, names, ["out"], **attrs)], op,
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
         for n, a in zip(names, inputs) if n],
        [helper.make_empty_tensor_value_info("out")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              ir_version=7 if opset <= 12 else 10)
    return ReferenceEvaluator(model).run(None, {n: a for n, a in zip(names, inputs) if n})[0]


def assert_kernel_gives(want: np.ndarray, op: str, inputs: list[np.ndarray | None], attrs: dict,
                        opset: int) -> None:
    for a in inputs:
        if a is not None:
            a.flags.writeable = False  # a kernel that writes into its inputs fails here
    (got,) = get_kernel(op, opset)(*inputs, **attrs)
    assert (got.dtype, got.shape) == (want.dtype, want.shape)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


def check(op: str, inputs: list[np.ndarray | None], attrs: dict, opset: int) -> None:
    assert_kernel_gives(expected(op, inputs, attrs, opset), op, inputs, attrs, opset)


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
    assert_kernel_gives(expected("Gemm", inputs, attrs, 7),
                        "Gemm", inputs, {**attrs, "broadcast": broadcast}, opset)


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
