"""Kernels of the fused ops GE's fusion passes create (not ONNX ops), and the NormalizeV2 the
DVPP engine's optimizer makes of a Sub and a Mul.

A fused op runs the op it extends, then the activation (FusedConv's ``activation`` attr, the Relu
of FusedBatchNormRelu) in place on that fresh output: one kernel launch instead of two, and no
intermediate tensor in device memory. FusedConv's Z, when given, is added before the activation.
The numbers are exactly those of the ops in a row.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from npu_emu.op_impl.elementwise import relu
from npu_emu.op_impl.in_place import fits
from npu_emu.op_impl.nn import batch_normalization, conv
from npu_emu.op_impl.registry import kernel

# activation -> its result, in place on a fresh float array where it can be: not where the
# array is laid out as a view's (a BatchNorm of a transposed input keeps its strides), which
# the kernel leaves alone and answers with an array of its own
ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "Relu": lambda y: relu(y, out=y),
}


def _activate(y: np.ndarray, activation: str) -> tuple[np.ndarray]:
    if activation not in ACTIVATIONS:
        raise ValueError(f"unknown activation {activation!r}; known: {', '.join(ACTIVATIONS)}")
    return (ACTIVATIONS[activation](y),)


@kernel("FusedConv", writes_out=True)
def fused_conv(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None,
               z: np.ndarray | None = None, *, activation: str,
               out: Sequence[np.ndarray] | None = None, **conv_attrs: object) -> tuple[np.ndarray]:
    if z is None:
        return _activate(conv(x, w, b, out=out, **conv_attrs)[0], activation)
    # The output may lie over Z (its memory reused, Z read last here): the conv then goes to a
    # fresh array, and the add into the output (a ufunc reads overlapping operands safely).
    dst = out[0] if out else None
    over_z = dst is not None and np.may_share_memory(dst, z)
    y = conv(x, w, b, out=None if over_z else out, **conv_attrs)[0]
    total = np.add(y, z, out=fits(dst, y.shape, y.dtype) if over_z else y)
    return _activate(total, activation)


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
