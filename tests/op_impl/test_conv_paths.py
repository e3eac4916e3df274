"""Conv's stride-1 "flat" im2col (columns over the padded rows, product cropped after) against
onnx's ReferenceEvaluator, on shapes chosen so that the path is taken (see nn._flat_im2col)."""
from __future__ import annotations

import numpy as np
import pytest

from kernel_oracle import check_kernel, reference

OPSET = 22


def rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("x_shape, w_shape, attrs", [
    # Wide rows, few outputs next to C * kernel: taken for group 1.
    ((2, 8, 5, 30), (4, 8, 3, 3), {"pads": [1, 1, 1, 1]}),
    ((1, 8, 5, 40), (4, 8, 3, 3), {"pads": [1, 2, 1, 2], "dilations": [1, 2]}),
    ((1, 8, 2, 2, 40), (2, 8, 1, 1, 3), {"pads": [0, 0, 1, 0, 0, 1]}),
    # Grouped: always taken with stride 1. Depthwise with a channel multiplier, SAME padding.
    ((2, 6, 7, 9), (12, 1, 3, 3), {"group": 6, "auto_pad": "SAME_UPPER"}),
    ((1, 8, 6, 6), (4, 2, 3, 3), {"group": 4, "pads": [1, 0, 1, 0]}),
])
def test_conv_flat_im2col(x_shape, w_shape, attrs):
    x, w, b = rand(*x_shape), rand(*w_shape, seed=1), rand(w_shape[0], seed=2)
    want = reference("Conv", [x, w, b], OPSET, 1, **attrs)
    check_kernel("Conv", [x, w, b], OPSET, want, rtol=1e-4, atol=1e-5, **attrs)
