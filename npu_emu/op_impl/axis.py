"""An axis attribute checked against the input's rank before a kernel uses it: a model (an OM's
bytes, an ONNX file) may hold any int64 there, and numpy's or Python's own refusal of a bad one
speaks of a C int or a tuple index, not of the op."""
from __future__ import annotations


def checked_axis(axis: int, rank: int, last: int | None = None, of: str = "input") -> int:
    """``axis`` counted from the front, if in [-rank, last] (``last``: rank - 1 unless an op
    also takes the rank itself), else a ValueError that says so (whoever reports it names the
    node or task, and so the op). ``of``: the tensor ``rank`` is the rank of (Unsqueeze counts
    its axes in its output)."""
    last = rank - 1 if last is None else last
    if not -rank <= axis <= last:
        raise ValueError(f"axis {axis} is out of range for a {rank}-d {of}")
    return axis + rank if axis < 0 else axis
