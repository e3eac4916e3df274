"""Do the outputs match the expected ones? If not, one line saying where and by how much.

The checks are the onnx backend runner's (``assert_similar_outputs``): same number of outputs,
then per output the same shape, the same dtype, and values within ``atol + rtol * |expected|``
(NaN matching NaN); strings must be equal; sequences are compared element by element.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np


def mismatch(outputs: Sequence[Any], expected: Sequence[Any], rtol: float,
             atol: float) -> str | None:
    """None if ``outputs`` match ``expected``, else the first difference as one line."""
    if len(outputs) != len(expected):
        return f"{len(outputs)} outputs, expected {len(expected)}"
    for i, (got, want) in enumerate(zip(outputs, expected)):
        if isinstance(want, (list, tuple)):
            if not isinstance(got, (list, tuple)):
                return f"output {i}: got a {type(got).__name__}, expected a sequence"
            reason = mismatch(got, want, rtol, atol)
        else:
            reason = _tensor_mismatch(np.asarray(got), np.asarray(want), rtol, atol)
        if reason:
            return f"output {i}: {reason}"
    return None


def _tensor_mismatch(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> str | None:
    if got.shape != want.shape:
        return f"shape {got.shape}, expected {want.shape}"
    if want.dtype == object:
        return None if np.array_equal(got, want) else "strings differ"
    if got.dtype != want.dtype:
        return f"dtype {got.dtype}, expected {want.dtype}"
    if want.dtype == bool:
        bad = got != want
    else:
        bad = ~np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    if not bad.any():
        return None
    g, w = got.astype(np.float64), want.astype(np.float64)
    excess = np.where(bad, np.nan_to_num(np.abs(g - w) - rtol * np.abs(w), nan=np.inf), -np.inf)
    worst = np.unravel_index(int(np.argmax(excess)), want.shape)
    return (f"{int(bad.sum())} of {want.size} values off (rtol={rtol:g}, atol={atol:g}); worst at "
            f"{tuple(int(k) for k in worst)}: got {g[worst]:.7g}, expected {w[worst]:.7g}")
