"""Quantization kernels: the QDQ pair (QuantizeLinear, DequantizeLinear), DynamicQuantizeLinear,
and the integer ops of quantized models (MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv).

A scale and zero point apply per tensor (a scalar), per axis (a vector along ``axis``) or per
block (``block_size`` elements along ``axis`` share one, 21+). Integer targets round half to
even and clamp to the type's range; float8 targets saturate as Cast does and take no zero point.
Integer products accumulate exactly: int32 matmuls, and convolutions in float64 (whose 53-bit
mantissa holds any int8 x int8 sum a real layer makes) through the Conv kernel.
"""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
from onnx import TensorProto, helper

from npu_emu.op_impl.axis import checked_axis
from npu_emu.op_impl.broadcast import check_one_per
from npu_emu.op_impl.cast import cast_to, element_dtype
from npu_emu.op_impl.elementwise import one_output
from npu_emu.op_impl.nn import conv
from npu_emu.op_impl.registry import kernel


def _spread(param: np.ndarray, shape: tuple[int, ...], axis: int, block_size: int = 0,
            name: str = "scale") -> np.ndarray:
    """A scale or zero point broadcastable to a tensor of ``shape``: one for all, one per
    element along ``axis``, or (``block_size``) one per block of that many along it. Any other
    shape is refused (numpy would broadcast it into a larger output than X, or fail)."""
    if param.size == 1 and param.ndim <= 1:
        return param.reshape(())
    axis = checked_axis(axis, len(shape))   # a per-tensor scale's axis is never read
    if block_size:
        blocks = tuple(-(-d // block_size) if a == axis else d for a, d in enumerate(shape))
        if param.shape != blocks:
            raise ValueError(f"{name} of shape {list(param.shape)} is not one per block of "
                             f"{block_size} along axis {axis} of X {list(shape)}: "
                             f"{list(blocks)}")
        full = np.repeat(param, block_size, axis=axis)
        return np.take(full, range(shape[axis]), axis=axis)
    if param.shape != (shape[axis],):
        raise ValueError(f"{name} of shape {list(param.shape)} is not one per element of axis "
                         f"{axis} of X {list(shape)}")
    dims = [1] * len(shape)
    dims[axis] = param.size
    return param.reshape(dims)


_NO_ZERO_POINT = frozenset({TensorProto.FLOAT8E4M3FN, TensorProto.FLOAT8E4M3FNUZ,
                            TensorProto.FLOAT8E5M2, TensorProto.FLOAT8E5M2FNUZ,
                            TensorProto.FLOAT4E2M1})


def _quantize(scaled: np.ndarray, zero_point: Any, dtype: np.dtype,
              saturate: bool = True) -> np.ndarray:
    """Round ``scaled`` (x / scale) to ``dtype``: integers round half to even, shift by the zero
    point and clamp; float8 and float4 cast (float8 saturating unless told not to)."""
    if dtype.kind in "iu" or dtype in _NARROW_INTS:
        info = ml_dtypes.iinfo(dtype)
        q = np.rint(scaled) + (0 if zero_point is None else zero_point.astype(np.float64))
        return np.clip(q, info.min, info.max).astype(dtype)
    if dtype == ml_dtypes.float4_e2m1fn and zero_point is not None:
        scaled = scaled + zero_point.astype(np.float32)
    return cast_to(scaled, helper.np_dtype_to_tensor_dtype(dtype), saturate)


_NARROW_INTS = (np.dtype(ml_dtypes.int4), np.dtype(ml_dtypes.uint4), np.dtype(ml_dtypes.int2),
                np.dtype(ml_dtypes.uint2))


@one_output("QuantizeLinear")
def quantize_linear(x: np.ndarray, y_scale: np.ndarray, y_zero_point: np.ndarray | None = None,
                    *, axis: int = 1, saturate: int = 1, block_size: int = 0,
                    output_dtype: int = 0, precision: int = 0) -> np.ndarray:
    # The zero point's dtype is y's; without one, output_dtype (21+), else uint8.
    if y_zero_point is not None:
        dtype = y_zero_point.dtype
    else:
        dtype = element_dtype(output_dtype or TensorProto.UINT8, "output_dtype")
    compute = element_dtype(precision, "precision") if precision else \
        np.result_type(x.dtype, y_scale.dtype)
    scale = _spread(y_scale, x.shape, axis, block_size).astype(compute)
    zero = None if y_zero_point is None else _spread(y_zero_point, x.shape, axis, block_size,
                                                      "y_zero_point")
    return _quantize(x.astype(compute) / scale, zero, np.dtype(dtype), bool(saturate))


@one_output("DequantizeLinear")
def dequantize_linear(x: np.ndarray, x_scale: np.ndarray, x_zero_point: np.ndarray | None = None,
                      *, axis: int = 1, block_size: int = 0, output_dtype: int = 0) -> np.ndarray:
    # y = (x - zero point) * scale, in the scale's dtype unless output_dtype (23+) says otherwise.
    dx = x.astype(np.float32)
    if x_zero_point is not None and \
            helper.np_dtype_to_tensor_dtype(x.dtype) not in _NO_ZERO_POINT:
        dx = dx - _spread(x_zero_point, x.shape, axis, block_size,
                          "x_zero_point").astype(np.float32)
    y = dx * _spread(x_scale, x.shape, axis, block_size)
    out = element_dtype(output_dtype, "output_dtype") if output_dtype else x_scale.dtype
    return y.astype(out)


@kernel("DynamicQuantizeLinear")
def dynamic_quantize_linear(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """uint8 over the range of x widened to hold 0: scale = range / 255, the zero point where
    0 lands, rounded (the spec's formula, in float32 as it writes it)."""
    high = np.float32(max(0.0, float(x.max(initial=0.0))))
    low = np.float32(min(0.0, float(x.min(initial=0.0))))
    scale = np.float32(1.0 if high == low else high - low) / np.float32(255)
    zero = np.rint(np.clip(np.float32(0) - low / scale, 0, 255))
    y = np.clip(np.rint(x / scale) + zero, 0, 255).astype(np.uint8)
    return y, np.array(scale, x.dtype), np.array(zero, np.uint8)


def _centered(x: np.ndarray, zero_point: np.ndarray | None, axis: int | None = -1,
              name: str = "zero point") -> np.ndarray:
    """x - zero point as int32; a vector zero point runs along ``axis`` (a matmul's rows of A,
    columns of B; a conv weight's output channels), or ``axis`` None: only one value (a conv
    input's)."""
    x32 = x.astype(np.int32)
    if zero_point is None:
        return x32
    if zero_point.size > 1:
        if axis is None or x.ndim == 0 or zero_point.size != x.shape[axis]:
            per = "" if axis is None or x.ndim == 0 else \
                f", nor one per element of axis {axis} of {list(x.shape)}"
            raise ValueError(f"{name} {list(zero_point.shape)} is not one value{per}")
        shape = [1] * x.ndim
        shape[axis] = zero_point.size
        zero_point = zero_point.reshape(shape)
    return x32 - zero_point.astype(np.int32)


@one_output("MatMulInteger")
def matmul_integer(a: np.ndarray, b: np.ndarray, a_zero_point: np.ndarray | None = None,
                   b_zero_point: np.ndarray | None = None) -> np.ndarray:
    # a's zero point is per row (axis -2) when a vector, b's per column (axis -1).
    return np.matmul(_centered(a, a_zero_point, -2, "a_zero_point"),
                     _centered(b, b_zero_point, -1, "b_zero_point"))


def _conv_integer(x: np.ndarray, w: np.ndarray, x_zero_point: np.ndarray | None,
                  w_zero_point: np.ndarray | None, attrs: dict[str, Any]) -> np.ndarray:
    """The exact integer convolution of (x - x_zp) and (w - w_zp), as float64."""
    (acc,) = conv(_centered(x, x_zero_point, None, "x_zero_point").astype(np.float64),
                  _centered(w, w_zero_point, 0, "w_zero_point").astype(np.float64), **attrs)
    return acc


@one_output("ConvInteger")
def conv_integer(x: np.ndarray, w: np.ndarray, x_zero_point: np.ndarray | None = None,
                 w_zero_point: np.ndarray | None = None, **attrs: Any) -> np.ndarray:
    return np.rint(_conv_integer(x, w, x_zero_point, w_zero_point, attrs)).astype(np.int32)


def _requantize(acc: np.ndarray, multiplier: np.ndarray, y_zero_point: np.ndarray | None,
                like: np.ndarray) -> np.ndarray:
    """An int32 accumulator back to 8 bits: acc * (in scales / out scale) + y's zero point."""
    dtype = like.dtype if y_zero_point is None else y_zero_point.dtype
    return _quantize(acc * multiplier, y_zero_point, np.dtype(dtype))


@one_output("QLinearMatMul")
def qlinear_matmul(a: np.ndarray, a_scale: np.ndarray, a_zero_point: np.ndarray | None,
                   b: np.ndarray, b_scale: np.ndarray, b_zero_point: np.ndarray | None,
                   y_scale: np.ndarray, y_zero_point: np.ndarray | None) -> np.ndarray:
    acc = np.matmul(_centered(a, a_zero_point, -2, "a_zero_point"),
                    _centered(b, b_zero_point, -1, "b_zero_point"))
    multiplier = a_scale.astype(np.float64) * b_scale.reshape(-1) / y_scale
    return _requantize(acc, multiplier, y_zero_point, a)


@one_output("QLinearConv")
def qlinear_conv(x: np.ndarray, x_scale: np.ndarray, x_zero_point: np.ndarray | None,
                 w: np.ndarray, w_scale: np.ndarray, w_zero_point: np.ndarray | None,
                 y_scale: np.ndarray, y_zero_point: np.ndarray | None,
                 b: np.ndarray | None = None, **attrs: Any) -> np.ndarray:
    # The int32 bias is added to the accumulator; a vector w scale is per output channel.
    check_one_per((w.shape[0],), "filter", bias=b)
    if w_scale.size > 1:
        check_one_per((w.shape[0],), "filter", w_scale=w_scale.reshape(-1))
    acc = _conv_integer(x, w, x_zero_point, w_zero_point, attrs)
    if b is not None:
        acc = acc + b.reshape((1, -1) + (1,) * (acc.ndim - 2))
    per_channel = w_scale.reshape((1, -1) + (1,) * (acc.ndim - 2)) if w_scale.size > 1 \
        else w_scale
    multiplier = x_scale.astype(np.float64) * per_channel / y_scale
    return _requantize(acc, multiplier, y_zero_point, x)
