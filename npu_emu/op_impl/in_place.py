"""Whether a kernel may write its result straight into the output buffer it was given.

It may when the buffer has the result's shape and dtype, is contiguous, and does not overlap
an input the kernel still reads after it starts writing (the memory planner may give an output
the address of an input it no longer needs; a single ufunc copes with that, a kernel of several
passes would read what it already overwrote). Otherwise the kernel allocates, and the device
copies.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def fits(out: np.ndarray | None, shape: Sequence[int], dtype: np.dtype,
         *reads: np.ndarray | None) -> np.ndarray | None:
    """``out`` if the result can go straight into it, else None."""
    if out is None or out.shape != tuple(shape) or out.dtype != dtype \
            or not out.flags.c_contiguous:  # kernels reshape it and write through the view
        return None
    if any(r is not None and np.may_share_memory(out, r) for r in reads):
        return None
    return out
