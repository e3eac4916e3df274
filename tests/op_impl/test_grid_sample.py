"""GridSample's nearest pick against onnx's reference evaluator and onnxruntime: both work a
float32 grid's pixel coordinates out in float32 and round half to even, so a grid point whose
float32 coordinate is a tie (0.8 on 6 pixels with align_corners: 4.5) picks the even pixel. In
float64 the same point lay just past the tie, and the pick moved one pixel."""
from __future__ import annotations

import numpy as np
import pytest

from kernel_oracle import check_kernel, onnxruntime

F4 = np.float32
TENTHS = np.arange(-10, 11, dtype=F4) / 10


@pytest.mark.parametrize("align_corners", [0, 1])
@pytest.mark.parametrize("image", [(1, 1, 6, 6), (1, 1, 6, 6, 6)], ids=["2d", "3d"])
def test_a_nearest_pick_rounds_the_float32_coordinate(image, align_corners):
    x = np.arange(np.prod(image), dtype=F4).reshape(image)
    nd = len(image) - 2
    grid = np.stack(np.meshgrid(*[TENTHS] * nd, indexing="ij"), axis=-1).reshape(
        1, -1, *[1] * (nd - 1), nd)
    args = dict(mode="nearest", align_corners=align_corners)
    check_kernel("GridSample", [x, grid], 20, rtol=0, atol=0, **args)
    check_kernel("GridSample", [x, grid], 20, onnxruntime("GridSample", [x, grid], 20, **args),
                 rtol=0, atol=0, **args)
