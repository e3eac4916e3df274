"""Random kernels: Bernoulli, RandomUniform(Like), RandomNormal(Like), Multinomial (ONNX default
domain).

The spec lets a node without ``seed`` draw from any seed; here it is 0, so a run replays to the
same numbers (as Dropout's training mask does). Draws come from numpy's PCG64 generator, so
they match no other implementation's; conformance checks their shape, dtype and range.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from onnx import TensorProto

from npu_emu.op_impl.cast import element_dtype
from npu_emu.op_impl.elementwise import one_output


def seeded(seed: float) -> np.random.Generator:
    """The generator a node's ``seed`` picks, any finite number taken as onnxruntime takes it,
    truncated to an integer (modulo 2^64: numpy refuses a negative seed, "expected non-negative
    integer"); a NaN or infinite seed names no generator."""
    if not np.isfinite(seed):
        raise ValueError(f"seed {seed} is not a finite number")
    return np.random.default_rng(int(seed) % (1 << 64))


def _uniform(seed: float, low: float, high: float, shape: Sequence[int]) -> np.ndarray:
    # numpy's "high - low < 0", or "high - low range exceeds valid bounds" for a NaN or inf
    if not (np.isfinite(low) and np.isfinite(high) and low <= high):
        raise ValueError(f"low {low} and high {high} are not finite with low <= high")
    return seeded(seed).uniform(low, high, shape)


def _normal(seed: float, mean: float, scale: float, shape: Sequence[int]) -> np.ndarray:
    if scale < 0:   # numpy's "scale < 0"
        raise ValueError(f"scale {scale} is negative")
    return seeded(seed).normal(mean, scale, shape)


def _dtype(dtype: int | None, like: np.ndarray | None = None) -> np.dtype:
    if dtype is None:
        return like.dtype if like is not None else np.dtype(np.float32)
    return element_dtype(dtype, "dtype")


@one_output("Bernoulli")
def bernoulli(p: np.ndarray, *, dtype: int | None = None, seed: float = 0) -> np.ndarray:
    # 1 with probability p, elementwise.
    return (seeded(seed).random(p.shape) < p).astype(_dtype(dtype, p))


@one_output("RandomUniformLike")
def random_uniform_like(x: np.ndarray, *, dtype: int | None = None, high: float = 1.0,
                        low: float = 0.0, seed: float = 0) -> np.ndarray:
    return _uniform(seed, low, high, x.shape).astype(_dtype(dtype, x))


@one_output("RandomNormalLike")
def random_normal_like(x: np.ndarray, *, dtype: int | None = None, mean: float = 0.0,
                       scale: float = 1.0, seed: float = 0) -> np.ndarray:
    return _normal(seed, mean, scale, x.shape).astype(_dtype(dtype, x))


@one_output("RandomUniform")
def random_uniform(*, shape: Sequence[int], dtype: int = TensorProto.FLOAT, high: float = 1.0,
                   low: float = 0.0, seed: float = 0) -> np.ndarray:
    return _uniform(seed, low, high, shape).astype(_dtype(dtype))


@one_output("RandomNormal")
def random_normal(*, shape: Sequence[int], dtype: int = TensorProto.FLOAT, mean: float = 0.0,
                  scale: float = 1.0, seed: float = 0) -> np.ndarray:
    return _normal(seed, mean, scale, shape).astype(_dtype(dtype))


@one_output("Multinomial")
def multinomial(logits: np.ndarray, *, dtype: int = TensorProto.INT32, sample_size: int = 1,
                seed: float = 0) -> np.ndarray:
    # sample_size class draws per batch row, from the softmax of its unnormalised log-probs.
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    cdf = np.cumsum(p / p.sum(axis=1, keepdims=True), axis=1)
    u = seeded(seed).random((logits.shape[0], sample_size, 1))
    drawn = np.minimum((u > cdf[:, None, :]).sum(axis=-1), logits.shape[1] - 1)
    return drawn.astype(_dtype(dtype))
