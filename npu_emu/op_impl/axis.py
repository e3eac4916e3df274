"""An axis attribute checked against the input's rank before a kernel uses it, and an index tensor
against its axis: a model (an OM's bytes, an ONNX file) or its data may hold any int64 there, and
numpy's or Python's own refusal of a bad one speaks of a C int or a tuple index, not of the op."""
from __future__ import annotations

import numpy as np


def checked_axis(axis: int, rank: int, last: int | None = None, of: str = "input") -> int:
    """``axis`` counted from the front, if in [-rank, last] (``last``: rank - 1 unless an op
    also takes the rank itself), else a ValueError that says so (whoever reports it names the
    node or task, and so the op). ``of``: the tensor ``rank`` is the rank of (Unsqueeze counts
    its axes in its output)."""
    last = rank - 1 if last is None else last
    if not -rank <= axis <= last:
        raise ValueError(f"axis {axis} is out of range for a {rank}-d {of}")
    return axis + rank if axis < 0 else axis


def check_indices(indices: np.ndarray, size: int, of: str, what: str = "indices") -> None:
    """Refuse an index outside [-size, size - 1] (a negative one counts from the end) of an axis
    ``size`` long, ``of`` naming it: numpy's IndexError names neither the input nor the op, and
    on the device its class reads as a kernel's own fault, not the model's data."""
    bad = outside(indices, -size, size)
    if bad is not None:
        raise ValueError(f"{what} hold {bad}, outside [{-size}, {size - 1}] of {of}")


def outside(values: np.ndarray, lo: int, hi: int) -> int | None:
    """A value of ``values`` outside [lo, hi): the lowest if it is below, else the highest if
    it is past; None when all lie within (ids, indices, lengths a kernel indexes with)."""
    if values.size == 0:
        return None
    low, high = int(values.min()), int(values.max())
    return low if low < lo else high if high >= hi else None
