"""Matrix kernels beyond the products: triangles (Trilu), identity-like matrices (EyeLike),
determinants (Det) and Einstein summation (Einsum) (ONNX default domain)."""
from __future__ import annotations

import numpy as np

from npu_emu.op_impl.cast import element_dtype
from npu_emu.op_impl.elementwise import one_output


@one_output("Trilu")
def trilu(x: np.ndarray, k: np.ndarray | None = None, *, upper: int = 1) -> np.ndarray:
    # The triangle of the last two dims on and above (upper) or below diagonal k.
    shift = 0 if k is None else int(np.asarray(k).reshape(()))
    return np.triu(x, shift) if upper else np.tril(x, shift)


@one_output("EyeLike")
def eye_like(x: np.ndarray, *, dtype: int | None = None, k: int = 0) -> np.ndarray:
    # Ones on diagonal k of a matrix shaped like x, in `dtype` (default: x's).
    out = x.dtype if dtype is None else element_dtype(dtype, "dtype")
    return np.eye(*x.shape, k=k, dtype=out)


@one_output("Det")
def det(x: np.ndarray) -> np.ndarray:
    # over the last two dims; numpy's linalg takes no half precision (float16, bfloat16), which
    # goes through float32 and rounds back
    wide = x.astype(np.float32) if x.dtype.itemsize == 2 else x
    return np.asarray(np.linalg.det(wide)).astype(x.dtype, copy=False)


@one_output("Einsum")
def einsum(*inputs: np.ndarray, equation: str) -> np.ndarray:
    # Half-precision operands (float16, bfloat16) sum in float32, as a real accumulator
    # would, then round back.
    wide = [x.astype(np.float32) if x.dtype.kind in "fV" and x.dtype.itemsize == 2 else x
            for x in inputs]
    y = np.einsum(equation.replace(" ", ""), *wide, optimize=True)
    return np.asarray(y).astype(inputs[0].dtype, copy=False)
