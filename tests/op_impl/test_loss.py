"""NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss against onnx's reference evaluator
where an ignored position holds a nan or an inf: it adds nothing to the loss (0 * nan is nan,
so weighing it by 0 is not enough)."""
from __future__ import annotations

import re

import numpy as np
import pytest

from kernel_oracle import check_kernel, reference, run_kernel

F4 = np.float32


def _inputs(bad: float) -> tuple[np.ndarray, np.ndarray]:
    x = np.random.default_rng(0).standard_normal((3, 5, 2)).astype(F4)
    target = np.array([[2, 1], [1, 4], [1, 3]], np.int64)   # ignore_index 1: four positions
    x[0, 0, 1] = bad   # class 0, which an ignored position is read as, at one of them
    x[1, :, 0] = bad   # every class of another
    return x, target


@pytest.mark.parametrize("bad", [np.nan, np.inf])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_an_ignored_position_adds_nothing_to_the_nll_loss(bad, reduction):
    x, target = _inputs(bad)
    check_kernel("NegativeLogLikelihoodLoss", [x, target], 13, rtol=1e-6, atol=1e-6,
                 ignore_index=1, reduction=reduction)


@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_an_ignored_position_adds_nothing_to_the_cross_entropy(reduction):
    x, target = _inputs(np.nan)
    expected = reference("SoftmaxCrossEntropyLoss", [x, target], 13, 2, ignore_index=1,
                         reduction=reduction)
    assert np.isfinite(expected[0]).all() and np.isnan(expected[1]).any()
    check_kernel("SoftmaxCrossEntropyLoss", [x, target], 13, expected, rtol=1e-5, atol=1e-6,
                 ignore_index=1, reduction=reduction)


@pytest.mark.parametrize("op", ["NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"])
@pytest.mark.parametrize("x, target, weight, said", [
    # a target of another batch (or another d1) was broadcast against the input: a loss of
    # the wrong samples where onnxruntime refuses
    (np.zeros((1, 5, 2), F4), np.zeros((3, 2), np.int64), None,
     "target of shape [3, 2] does not match the input's [1, 5, 2]"),
    (np.zeros((3, 5, 1), F4), np.zeros((3, 2), np.int64), None,
     "target of shape [3, 2] does not match the input's [3, 5, 1]"),
    (np.zeros((3, 5), F4), np.array([0, 5, 1]), None,            # numpy's index error before
     "target class 5 is out of range for 5 classes"),
    (np.zeros((3, 5), F4), np.array([0, 4, 1]), np.ones(4, F4),
     "weight of shape [4] is not one per class of 5"),
])
def test_a_target_unlike_the_input_is_refused_by_name(op, x, target, weight, said):
    with pytest.raises(ValueError, match="^" + re.escape(said)):
        run_kernel(op, [x, target, weight], 13)
