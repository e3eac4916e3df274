"""Kernels of the fused ops GE's fusion passes create (not ONNX ops), and the NormalizeV2 the
DVPP engine's optimizer makes of a Sub and a Mul.

A fused op runs the op it extends, then the activation (FusedConv's ``activation`` attr, the Relu
of FusedBatchNormRelu) in place on that fresh output: one kernel launch instead of two, and no
intermediate tensor in device memory. The numbers are exactly those of the two ops in a row.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from npu_emu.op_impl.elementwise import relu
from npu_emu.op_impl.nn import batch_normalization, conv
from npu_emu.op_impl.registry import kernel

# activation -> an in-place update of a fresh float array
ACTIVATIONS: dict[str, Callable[[np.ndarray], object]] = {
    "Relu": lambda y: relu(y, out=y),
}


def _activate(y: np.ndarray, activation: str) -> tuple[np.ndarray]:
    if activation not in ACTIVATIONS:
        raise ValueError(f"unknown activation {activation!r}; known: {', '.join(ACTIVATIONS)}")
    ACTIVATIONS[activation](y)
    return (y,)


@kernel("FusedConv", writes_out=True)
def fused_conv(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None, *, activation: str,
               out: Sequence[np.ndarray] | None = None, **conv_attrs: object) -> tuple[np.ndarray]:
    return _activate(conv(x, w, b, out=out, **conv_attrs)[0], activation)


@kernel("FusedBatchNormRelu", writes_out=True)
def fused_batch_norm_relu(x: np.ndarray, scale: np.ndarray, b: np.ndarray, mean: np.ndarray,
                          var: np.ndarray, *, epsilon: float = 1e-5,
                          out: Sequence[np.ndarray] | None = None) -> tuple[np.ndarray]:
    y = batch_normalization(x, scale, b, mean, var, epsilon=epsilon, out=out)[0]
    return _activate(y, "Relu")


@kernel("NormalizeV2")
def normalize_v2(x: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray]:
    # the Sub, then the Mul, each rounded as the two ops were
    return (np.multiply(np.subtract(x, mean), scale),)
