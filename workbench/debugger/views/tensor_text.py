"""Tensors as text: a one-line summary (dtype, shape, min/max/mean) and numpy's own printout
with summary stats, in a fixed format so transcripts compare byte for byte."""
from __future__ import annotations

import numpy as np

from ge_core.graph.types import DataType


def dtype_shape(v: np.ndarray) -> str:
    try:
        short = DataType.from_numpy(v.dtype).short
    except (KeyError, ValueError, TypeError):
        short = str(v.dtype)
    return f"{short}[{','.join(map(str, v.shape))}]"


def stats(v: np.ndarray) -> str:
    if v.size == 0:
        return "empty"
    if v.dtype.kind == "V":  # bfloat16, float8, int4 (ml_dtypes): their values as floats
        v = v.astype(np.float32)
    if v.dtype.kind not in "fiub":
        return f"{v.size} elements"
    f = v.astype(np.float64)
    return (f"min {f.min():.6g} max {f.max():.6g} mean {f.mean():.6g} std {f.std():.6g}"
            + (f" nan {int(np.isnan(f).sum())}" if v.dtype.kind == "f" and np.isnan(f).any()
               else ""))


def summary(v: object) -> str:
    """One line; an ONNX sequence (a list) by its elements, an empty optional as such."""
    if v is None:
        return "empty optional"
    if isinstance(v, list):
        shown = ", ".join(dtype_shape(np.asarray(x)) for x in v[:4])
        return f"sequence of {len(v)}" + (f": {shown}" if v else "") + \
            (", ..." if len(v) > 4 else "")
    v = np.asarray(v)
    return f"{dtype_shape(v)} {stats(v)}"


def full(name: str, v: object, source: str) -> str:
    v = np.asarray(v)
    body = np.array2string(v, precision=5, suppress_small=True, threshold=64, edgeitems=3,
                           max_line_width=96)
    return f"tensor {name}: {dtype_shape(v)} ({source})\n  {stats(v)}\n{body}"
