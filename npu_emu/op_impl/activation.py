"""Activations added to ONNX after the classic ones (those are with the elementwise kernels):
Gelu, Swish and SwiGLU (ONNX default domain)."""
from __future__ import annotations

import math

import numpy as np

from npu_emu.op_impl.elementwise import erf, one_output, sigmoid


@one_output("Gelu")
def gelu(x: np.ndarray, *, approximate: str = "none") -> np.ndarray:
    # x * Phi(x), Phi the normal CDF (via erf), or its tanh approximation.
    if approximate == "tanh":
        inner = x.dtype.type(math.sqrt(2 / math.pi)) * (x + x.dtype.type(0.044715) * x ** 3)
        return x.dtype.type(0.5) * x * (1 + np.tanh(inner))
    return x.dtype.type(0.5) * x * (1 + erf(x / x.dtype.type(math.sqrt(2))))


@one_output("Swish")
def swish(x: np.ndarray, *, alpha: float = 1.0) -> np.ndarray:
    return x * sigmoid(x.dtype.type(alpha) * x)


@one_output("SwiGLU")
def swi_glu(a: np.ndarray, b: np.ndarray, *, alpha: float = 1.0) -> np.ndarray:
    # Swish(a) gates b; the two must have one shape (no broadcasting).
    if a.shape != b.shape:
        raise ValueError(f"SwiGLU needs operands of one shape, got {a.shape} and {b.shape}")
    return swish(a, alpha=alpha) * b

