"""Running sums and products along an axis: CumSum and CumProd (ONNX default domain).

``exclusive`` shifts the run by one (element i takes the elements before it, not up to it),
``reverse`` runs it from the end; both are views around one numpy accumulate.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from npu_emu.op_impl.axis import checked_axis
from npu_emu.op_impl.elementwise import one_output


def _cumulative(accumulate: Callable[..., np.ndarray], identity: int) -> Callable[..., np.ndarray]:
    def run(x: np.ndarray, axis: np.ndarray, *, exclusive: int = 0,
            reverse: int = 0) -> np.ndarray:
        axis = checked_axis(int(np.asarray(axis).reshape(())), x.ndim)
        if reverse:
            x = np.flip(x, axis)
        y = accumulate(x, axis=axis, dtype=x.dtype)
        if exclusive and x.shape[axis]:   # [identity, y0, y1, ...]: drop the last, shift up
            first = np.full_like(np.take(y, [0], axis), identity)
            y = np.concatenate([first, np.delete(y, -1, axis)], axis)
        return np.flip(y, axis) if reverse else y

    return run


one_output("CumSum")(_cumulative(np.cumsum, 0))
one_output("CumProd")(_cumulative(np.cumprod, 1))
