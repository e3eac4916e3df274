"""Bit-level kernels: BitwiseAnd/Or/Xor/Not on integers, BitCast, which reads the same bytes as
another type of the same width, and IsInf/IsNaN, which test a float's exponent and mantissa
bits (ONNX default domain). BitShift, older, is with the elementwise kernels."""
from __future__ import annotations

import numpy as np

from npu_emu.op_impl.broadcast import rowwise
from npu_emu.op_impl.cast import element_dtype
from npu_emu.op_impl.elementwise import one_output

for _op, _fn in {"BitwiseAnd": np.bitwise_and, "BitwiseOr": np.bitwise_or,
                 "BitwiseXor": np.bitwise_xor}.items():
    one_output(_op)(rowwise(_fn))
one_output("BitwiseNot")(np.bitwise_not)


@one_output("BitCast")
def bit_cast(x: np.ndarray, *, to: int) -> np.ndarray:
    target = element_dtype(to, "to")
    if target.itemsize != x.dtype.itemsize or target.kind in "OSU" or x.dtype.kind in "OSU":
        raise ValueError(f"BitCast from {x.dtype} to {target}: only between types of one "
                         f"width, strings excluded")
    return (x if x.flags.c_contiguous else x.copy()).view(target)  # 0-d stays 0-d


@one_output("IsInf")
def is_inf(x: np.ndarray, *, detect_negative: int = 1, detect_positive: int = 1) -> np.ndarray:
    return (np.isposinf(x) & bool(detect_positive)) | (np.isneginf(x) & bool(detect_negative))


one_output("IsNaN")(np.isnan)
