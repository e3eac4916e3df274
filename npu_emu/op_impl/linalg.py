"""Linear-algebra kernels: Gemm and MatMul (ONNX default domain)."""
from __future__ import annotations

import numpy as np

from npu_emu.op_impl.broadcast import check_onto
from npu_emu.op_impl.registry import kernel


def _gemm(a: np.ndarray, b: np.ndarray, c: np.ndarray | None, alpha: float, beta: float,
          trans_a: int, trans_b: int) -> tuple[np.ndarray]:
    # Transposes are views: BLAS reads them in place, nothing is copied.
    y = (a.T if trans_a else a) @ (b.T if trans_b else b)
    if c is not None:
        check_onto(c, y.shape, "C", "the output")
    if alpha != 1:
        y = y * alpha
    if c is not None and beta != 0:
        y = y + (c if beta == 1 else beta * c)
    # Python-float alpha/beta keep float32 float32 (NEP 50), but lift integer Gemm to float.
    return (y.astype(a.dtype, copy=False),)


@kernel("Gemm")
def gemm(a: np.ndarray, b: np.ndarray, c: np.ndarray, *, alpha: float = 1.0, beta: float = 1.0,
         broadcast: int = 0, transA: int = 0, transB: int = 0) -> tuple[np.ndarray]:
    # Versions 1 and 6: C broadcasts only when the `broadcast` attribute says so.
    if not broadcast:
        m = a.shape[1] if transA else a.shape[0]
        n = b.shape[0] if transB else b.shape[1]
        if c.shape != (m, n):
            raise ValueError(f"Gemm: C has shape {c.shape}, expected ({m}, {n}) since broadcast=0")
    return _gemm(a, b, c, alpha, beta, transA, transB)


@kernel("Gemm", since=7)
def gemm_7(a: np.ndarray, b: np.ndarray, c: np.ndarray | None = None, *, alpha: float = 1.0,
           beta: float = 1.0, transA: int = 0, transB: int = 0) -> tuple[np.ndarray]:
    # C broadcasts unidirectionally to (M, N) from version 7; optional from version 11.
    return _gemm(a, b, c, alpha, beta, transA, transB)


@kernel("MatMul")
def matmul(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray]:
    # ONNX MatMul is numpy matmul: 1-D operands promoted and squeezed, batch dims broadcast.
    # ml_dtypes' bfloat16 matmul computes in float32 and returns that: ONNX keeps the type.
    y = np.asarray(np.matmul(a, b))  # two vectors give a numpy scalar
    return (y.astype(a.dtype, copy=False),)
