"""Tensors as text: a one-line summary (dtype, shape, min/max/mean) and numpy's own printout
with summary stats, in a fixed format so transcripts compare byte for byte. The stats show five
significant digits: a float32 sum's last digits depend on the order the CPU's BLAS kernel adds
in, which differs from one processor to the next."""
from __future__ import annotations

import numpy as np

from ge_core.graph.types import DataType


def dtype_shape(v: np.ndarray) -> str:
    try:
        short = DataType.from_numpy(v.dtype).short
    except (KeyError, ValueError, TypeError):   # a dtype GE has no DataType for
        short = str(v.dtype)
    return f"{short}[{','.join(map(str, v.shape))}]"


def stats(v: np.ndarray) -> str:
    if v.size == 0:
        return "empty"
    if v.dtype.kind == "V":  # bfloat16, float8, int4 (ml_dtypes): their values as floats
        v = v.astype(np.float32)
    if v.dtype.kind not in "fiub":
        return f"{v.size} elements"
    distinct, copies = _distinct(v)
    f = distinct.astype(np.float64)
    with np.errstate(all="ignore"):   # inf - inf in std: the stats say nan, no warning
        text = f"min {f.min():.5g} max {f.max():.5g} mean {f.mean():.5g} std {f.std():.5g}"
    nans = int(np.isnan(f).sum()) * copies if v.dtype.kind == "f" else 0
    return text + (f" nan {nans}" if nans else "")


def _distinct(v: np.ndarray) -> tuple[np.ndarray, int]:
    """``v`` without its broadcast axes (stride 0), and how many times each element repeats:
    a broadcast view of 4e12 elements has the min, max, mean and std of the data under it."""
    keep = tuple(slice(0, 1) if stride == 0 and n > 1 else slice(None)
                 for stride, n in zip(v.strides, v.shape))
    distinct = v[keep]
    return distinct, v.size // max(distinct.size, 1)


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
