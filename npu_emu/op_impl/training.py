"""ai.onnx.preview.training's optimizer steps: Momentum, Adagrad, Adam. Each updates n tensors
at once: inputs are the learning rate R, the step count T, then the n tensors X, their
gradients G and their optimizer states (Momentum: V; Adagrad: H; Adam: V then H); outputs the
new X's, then the new states in the same order."""
from __future__ import annotations

import numpy as np

from npu_emu.op_impl.registry import kernel

TRAINING = "ai.onnx.preview.training::"


def _groups(r: np.ndarray, t: np.ndarray, tensors: tuple[np.ndarray, ...],
            k: int) -> list[tuple[np.ndarray, ...]]:
    """(X_i, G_i, state_i...) for each of the n tensors, from X_1..X_n, G_1..G_n, ...; each of
    one shape, after the scalars R and T (numpy broadcasts any of them into larger outputs)."""
    if np.size(r) != 1 or np.size(t) != 1:
        raise ValueError(f"R {list(np.shape(r))} and T {list(np.shape(t))} are not scalars")
    if len(tensors) % k:
        raise ValueError(f"{len(tensors)} tensors after R and T are not {k} per updated tensor")
    n = len(tensors) // k
    groups = list(zip(*(tensors[j * n:(j + 1) * n] for j in range(k))))
    for i, (x, *rest) in enumerate(groups):
        if any(a.shape != x.shape for a in rest):
            raise ValueError(f"X_{i + 1} {list(x.shape)}, its gradient and state(s) "
                             f"{[list(a.shape) for a in rest]} differ in shape")
    return groups


@kernel(TRAINING + "Momentum")
def momentum(r: np.ndarray, t: np.ndarray, *tensors: np.ndarray, alpha: float, beta: float,
             mode: str, norm_coefficient: float) -> tuple[np.ndarray, ...]:
    # v' = alpha v + beta g' (beta = 1 on the first step), g' = g + norm * x; standard:
    # x' = x - r v'; nesterov: x' = x - r (g' + alpha v').
    xs, vs = [], []
    for x, g, v in _groups(r, t, tensors, 3):
        g = norm_coefficient * x + g
        v = alpha * v + (beta if t > 0 else 1) * g
        xs.append((x - r * (v if mode == "standard" else g + alpha * v)).astype(x.dtype))
        vs.append(v.astype(x.dtype))
    return tuple(xs + vs)


@kernel(TRAINING + "Adagrad")
def adagrad(r: np.ndarray, t: np.ndarray, *tensors: np.ndarray, decay_factor: float = 0.0,
            epsilon: float = 0.0, norm_coefficient: float = 0.0) -> tuple[np.ndarray, ...]:
    # h' = h + g'^2, x' = x - r / (1 + t decay) * g' / (sqrt(h') + epsilon).
    rate = r / (1 + t * decay_factor)
    xs, hs = [], []
    for x, g, h in _groups(r, t, tensors, 3):
        g = norm_coefficient * x + g
        h = h + g * g
        xs.append((x - rate * g / (np.sqrt(h) + epsilon)).astype(x.dtype))
        hs.append(h.astype(x.dtype))
    return tuple(xs + hs)


@kernel(TRAINING + "Adam")
def adam(r: np.ndarray, t: np.ndarray, *tensors: np.ndarray, alpha: float = 0.9,
         beta: float = 0.999, epsilon: float = 0.0, norm_coefficient: float = 0.0,
         norm_coefficient_post: float = 0.0) -> tuple[np.ndarray, ...]:
    # v' = alpha v + (1 - alpha) g', h' = beta h + (1 - beta) g'^2; from step 1 on the rate is
    # bias-corrected by sqrt(1 - beta^t) / (1 - alpha^t); x' is finally shrunk by norm_post.
    rate = r * np.sqrt(1 - beta ** t) / (1 - alpha ** t) if t > 0 else r
    xs, vs, hs = [], [], []
    for x, g, v, h in _groups(r, t, tensors, 4):
        g = norm_coefficient * x + g
        v = alpha * v + (1 - alpha) * g
        h = beta * h + (1 - beta) * g * g
        x_new = (1 - norm_coefficient_post) * (x - rate * v / (np.sqrt(h) + epsilon))
        xs.append(x_new.astype(x.dtype)), vs.append(v.astype(x.dtype)), hs.append(h.astype(x.dtype))
    return tuple(xs + vs + hs)
