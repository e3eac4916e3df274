"""MapIndex, the kernel that picks a multi-batch gear: the row of the gear table equal to the
current gear's dim values (GE's MapIndex op, which the gear passes put before the Case)."""
from __future__ import annotations

import numpy as np

from npu_emu.op_impl.registry import kernel


@kernel("MapIndex")
def map_index(x: np.ndarray, data_seq: np.ndarray,
              level_index: np.ndarray | None = None) -> tuple[np.ndarray]:
    x = np.asarray(x).reshape(-1)
    rows = np.asarray(data_seq).reshape(-1, x.size)
    hits = np.flatnonzero((rows == x).all(axis=1))
    if not hits.size:
        raise ValueError(f"dims {x.tolist()} are none of the gears {rows.tolist()}")
    return (np.array(hits[0], np.int32),)
