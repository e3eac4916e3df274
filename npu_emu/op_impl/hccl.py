"""The collectives as the host reference sees them: on a group of one rank, AllReduce, Broadcast
and AllGather hand each rank its own input (the device runs them as HCCL tasks,
npu_emu/feature/hccl.py).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from npu_emu.op_impl.registry import kernel


@kernel("HcomAllReduce")
@kernel("HcomBroadcast")
@kernel("HcomAllGather")
def group_of_one(x: np.ndarray, **attrs: Any) -> tuple[np.ndarray]:
    return (x,)
