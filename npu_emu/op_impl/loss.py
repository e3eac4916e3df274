"""Losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (ONNX default domain).

Both pick, for each sample n and position d, the input at class target[n, d] along axis 1,
negate it and weigh it by weight[target] (1 without weights); a target equal to
``ignore_index`` weighs 0 whatever its value (it may lie outside [0, C)). ``mean`` divides the
sum by the total weight, so ignored positions do not count.
"""
from __future__ import annotations

import numpy as np

from npu_emu.op_impl.axis import outside
from npu_emu.op_impl.reduce import log_softmax
from npu_emu.op_impl.registry import kernel


def _nll(x: np.ndarray, target: np.ndarray, weight: np.ndarray | None, ignore_index: int | None,
         reduction: str) -> np.ndarray:
    if x.ndim < 2 or target.shape != x.shape[:1] + x.shape[2:]:
        raise ValueError(f"target of shape {list(target.shape)} does not match the input's "
                         f"{list(x.shape)} (N, C, d1...: the target is N, d1...)")
    if weight is not None and weight.shape != x.shape[1:2]:
        raise ValueError(f"weight of shape {list(weight.shape)} is not one per class of "
                         f"{x.shape[1]}")
    kept = np.ones(target.shape, bool) if ignore_index is None else target != ignore_index
    cls = np.where(kept, target, 0)
    if outside(cls, 0, x.shape[1]) is not None:
        wrong = cls[(cls < 0) | (cls >= x.shape[1])][0]
        raise ValueError(f"target class {wrong} is out of range for {x.shape[1]} classes")
    picked = np.take_along_axis(x, np.expand_dims(cls, 1), axis=1).squeeze(1)
    w = np.ones(target.shape, x.dtype) if weight is None else weight[cls]
    w = np.where(kept, w, 0).astype(x.dtype)
    # an ignored position adds nothing, a nan or inf of its (stand-in) class 0 included: it
    # is not multiplied at all (0 * nan is nan)
    loss = np.zeros(target.shape, x.dtype)
    np.multiply(-picked, w, out=loss, where=kept)
    if reduction == "none":
        return loss
    if reduction == "sum":
        return np.asarray(loss.sum(), x.dtype)
    if reduction == "mean":
        return np.asarray(loss.sum() / w.sum(), x.dtype)
    raise ValueError(f"unknown reduction {reduction!r}; known: none, sum, mean")


@kernel("NegativeLogLikelihoodLoss")
def negative_log_likelihood_loss(x: np.ndarray, target: np.ndarray,
                                 weight: np.ndarray | None = None, *,
                                 ignore_index: int | None = None,
                                 reduction: str = "mean") -> tuple[np.ndarray]:
    return (_nll(x, target, weight, ignore_index, reduction),)


@kernel("SoftmaxCrossEntropyLoss")
def softmax_cross_entropy_loss(scores: np.ndarray, labels: np.ndarray,
                               weights: np.ndarray | None = None, *,
                               ignore_index: int | None = None,
                               reduction: str = "mean") -> tuple[np.ndarray, np.ndarray]:
    """The loss, and the log-probabilities it was taken from (the optional second output)."""
    log_prob = log_softmax(scores, 1)
    return _nll(log_prob, labels, weights, ignore_index, reduction), log_prob
