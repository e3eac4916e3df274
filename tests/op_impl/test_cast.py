"""Cast and CastLike against onnx's ReferenceEvaluator, the narrow types (float8, float4, int4,
int2, bfloat16) and strings included. Cast-1's string `to` the reference cannot run: its expected
value is numpy's cast, next to the test."""
from __future__ import annotations

from functools import partial

import ml_dtypes
import numpy as np
import pytest
from onnx import TensorProto

from kernel_oracle import check_kernel, onnxruntime, reference, run_kernel
from npu_emu.op_impl import get_kernel

RNG = np.random.default_rng(0)
check = partial(check_kernel, rtol=1e-5, atol=1e-6)


def randn(*shape: int, dtype=np.float32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


TARGETS = [TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.DOUBLE, TensorProto.INT8,
           TensorProto.UINT8, TensorProto.INT32, TensorProto.INT64, TensorProto.BOOL]


@pytest.mark.parametrize("opset", [6, 9, 13, 19])
@pytest.mark.parametrize("to", TARGETS)
@pytest.mark.parametrize("source", [np.float32, np.int64, np.bool_])
def test_cast(source: type, to: int, opset: int) -> None:
    x = (np.abs(randn(3, 4)) * 50).astype(source)  # fractions and non-negatives (for UINT8)
    check("Cast", [x], opset, to=to)


def test_cast_bfloat16() -> None:
    x = randn(3, 4)
    check("Cast", [x], 13, to=TensorProto.BFLOAT16)
    (bf,) = get_kernel("Cast", 13)(x, to=TensorProto.BFLOAT16)
    check("Cast", [bf], 13, to=TensorProto.FLOAT)


def test_cast_1_names_the_type() -> None:
    # Neither the reference evaluator nor onnxruntime runs Cast-1's string `to`.
    x = randn(3) * 10
    check("Cast", [x], 1, [x.astype(np.int32)], to="INT32")


@pytest.mark.parametrize("opset", [15, 19])
def test_cast_like(opset: int) -> None:
    check("CastLike", [randn(3, 4) * 10, np.zeros(1, np.int16)], opset)


NARROW = [TensorProto.FLOAT8E4M3FN, TensorProto.FLOAT8E4M3FNUZ, TensorProto.FLOAT8E5M2,
          TensorProto.FLOAT8E5M2FNUZ, TensorProto.FLOAT4E2M1, TensorProto.INT4,
          TensorProto.UINT4, TensorProto.INT2, TensorProto.UINT2, TensorProto.FLOAT8E8M0]
# In range, out of range both ways, +-inf and NaN: where saturation and rounding differ.
EDGES = np.array([0.3, -1.7, 2.5, 7.0, 1e5, -1e5, np.inf, -np.inf, np.nan], np.float32)
INTS = np.array([0.3, 1.0, 1.6], np.float32)  # what int2's [-2, 1] and uint2's [0, 3] hold


def same_bits(got: np.ndarray, want: np.ndarray) -> None:
    """Bit for bit: NaNs of a narrow float compare unequal, and its bytes say which NaN."""
    assert (got.dtype, got.shape) == (want.dtype, want.shape)
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("saturate", [0, 1])
@pytest.mark.parametrize("to", NARROW, ids=TensorProto.DataType.Name)
def test_cast_to_narrow(to: int, saturate: int) -> None:
    x = EDGES if TensorProto.DataType.Name(to).startswith("FLOAT") else INTS
    (want,) = reference("Cast", [x], 25, to=to, saturate=saturate)
    (got,) = run_kernel("Cast", [x], 25, to=to, saturate=saturate)
    same_bits(got, want)


@pytest.mark.parametrize("to", NARROW, ids=TensorProto.DataType.Name)
def test_cast_from_narrow(to: int) -> None:
    (narrow,) = get_kernel("Cast", 25)(INTS, to=to)
    check("Cast", [narrow], 25, to=TensorProto.FLOAT)


@pytest.mark.parametrize("round_mode", ["up", "down", "nearest"])
def test_cast_e8m0_round_mode(round_mode: str) -> None:
    x = np.array([0.75, 3.0, 5.0, 1e-3], np.float32)
    (want,) = reference("Cast", [x], 25, to=TensorProto.FLOAT8E8M0, round_mode=round_mode)
    (got,) = run_kernel("Cast", [x], 25, to=TensorProto.FLOAT8E8M0, round_mode=round_mode)
    same_bits(got, want)


def test_cast_strings_both_ways() -> None:
    words = np.array(["1.5", "-2", "1e3", "NaN"], dtype=object)
    (want,) = reference("Cast", [words], 19, to=TensorProto.FLOAT)
    (got,) = run_kernel("Cast", [words], 19, to=TensorProto.FLOAT)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("x", [
    np.array([0.0, 1.5, 1e-7, 123456789.0, -0.1, np.nan, -np.inf, 1 / 3], np.float32),
    np.array([0.1, 2.0, 1e300, -0.0]), np.array([0.1, 65504], np.float16),
    np.array([True, False]), np.array([-3, 0, 7], np.int32),
    np.array(1.5, np.float32), np.array(-2.0)],   # one value: the texts' ufunc gave a bare str
    ids=lambda x: f"{x.dtype}{list(x.shape)}")
def test_numbers_print_as_onnxruntime_prints_them(x: np.ndarray) -> None:
    # The reference evaluator prints numpy's way ("2.0", "nan"); onnxruntime the shortest digits.
    (want,) = onnxruntime("Cast", [x], 19, to=TensorProto.STRING)
    (got,) = run_kernel("Cast", [x], 19, to=TensorProto.STRING)
    assert got.dtype == object and got.tolist() == want.tolist()


def test_cast_like_takes_a_narrow_target() -> None:
    target = np.zeros(1, ml_dtypes.float8_e5m2)
    (want,) = reference("CastLike", [EDGES, target], 19)
    (got,) = run_kernel("CastLike", [EDGES, target], 19)
    same_bits(got, want)
