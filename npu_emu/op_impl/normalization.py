"""Normalisation over trailing axes or channel groups: LayerNormalization, RMSNormalization,
GroupNormalization (ONNX default domain). BatchNormalization and InstanceNormalization, the
per-channel ones, are with the other nn kernels.

Statistics are computed in float32 at least (``stash_type`` 1, the default), so a float16
input does not lose its mean and variance to rounding; the result returns to x's dtype.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from npu_emu.op_impl.axis import checked_axis
from npu_emu.op_impl.broadcast import check_onto
from npu_emu.op_impl.registry import kernel


def _stash(x: np.ndarray) -> np.ndarray:
    return x.astype(np.promote_types(x.dtype, np.float32), copy=False)


def _normalised_axes(x: np.ndarray, axis: int, scale: np.ndarray,
                     b: np.ndarray | None = None) -> tuple[int, ...]:
    """The axes from ``axis`` on, which the scale and bias must broadcast onto x along."""
    for name, param in (("scale", scale), ("B", b)):
        if param is not None:
            check_onto(param, x.shape, name, "X")
    return tuple(range(checked_axis(axis, x.ndim), x.ndim))


@kernel("LayerNormalization")
def layer_normalization(x: np.ndarray, scale: np.ndarray, b: np.ndarray | None = None, *,
                        axis: int = -1, epsilon: float = 1e-5,
                        stash_type: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Y, and the Mean and InvStdDev of each normalised slice (kept dims of size 1)."""
    axes = _normalised_axes(x, axis, scale, b)
    xs = _stash(x)
    mean = xs.mean(axis=axes, keepdims=True)
    centred = xs - mean
    inv_std = 1 / np.sqrt(np.square(centred).mean(axis=axes, keepdims=True) + epsilon)
    y = centred * inv_std * scale
    if b is not None:
        y += b
    return y.astype(x.dtype), mean.astype(x.dtype), inv_std.astype(x.dtype)


@kernel("RMSNormalization")
def rms_normalization(x: np.ndarray, scale: np.ndarray, *, axis: int = -1,
                      epsilon: float = 1e-5, stash_type: int = 1) -> tuple[np.ndarray]:
    axes = _normalised_axes(x, axis, scale)
    xs = _stash(x)
    rms = np.sqrt(np.square(xs).mean(axis=axes, keepdims=True) + epsilon)
    return ((xs / rms * scale).astype(x.dtype),)


def check_groups(shape: Sequence[int], groups: int) -> None:
    """GroupNormalization's num_groups divides X's channels. A channel count below 0 is one not
    known yet (InferShape's UNKNOWN_DIM) and passes."""
    if groups < 1:
        raise ValueError(f"num_groups {groups} is not positive")
    if len(shape) < 2:
        raise ValueError(f"X {list(shape)} is not [N, C, ...]")
    if shape[1] > 0 and shape[1] % groups:
        raise ValueError(f"num_groups {groups} does not divide the {shape[1]} channels of X")


def _group_norm(x: np.ndarray, groups: int, epsilon: float) -> np.ndarray:
    """x normalised over each group of C / groups channels and all spatial positions."""
    check_groups(x.shape, groups)
    grouped = _stash(x).reshape(x.shape[0], groups, -1)
    centred = grouped - grouped.mean(axis=2, keepdims=True)
    var = np.square(centred).mean(axis=2, keepdims=True)
    return (centred / np.sqrt(var + epsilon)).reshape(x.shape)


@kernel("GroupNormalization", since=18)
def group_normalization_18(x: np.ndarray, scale: np.ndarray, bias: np.ndarray, *,
                           num_groups: int, epsilon: float = 1e-5) -> tuple[np.ndarray]:
    # Opset 18: one scale and bias per group (replaced by per-channel ones in 21).
    shape = (1, num_groups, -1)
    for name, param in (("scale", scale), ("bias", bias)):
        check_onto(param, (num_groups,), name, "the groups")
    y = _group_norm(x, num_groups, epsilon).reshape(x.shape[0], num_groups, -1)
    return ((y * scale.reshape(shape) + bias.reshape(shape)).reshape(x.shape).astype(x.dtype),)


@kernel("GroupNormalization", since=21)
def group_normalization(x: np.ndarray, scale: np.ndarray, bias: np.ndarray, *, num_groups: int,
                        epsilon: float = 1e-5, stash_type: int = 1) -> tuple[np.ndarray]:
    shape = (1, -1) + (1,) * (x.ndim - 2)
    y = _group_norm(x, num_groups, epsilon)   # checks x's rank and channels first
    for name, param in (("scale", scale), ("bias", bias)):
        check_onto(param, x.shape[1:2], name, "the channels")
    y = y * scale.reshape(shape) + bias.reshape(shape)
    return (y.astype(x.dtype),)
