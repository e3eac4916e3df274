"""The logical memory a built model addresses: the contract between the memory assigner, which
writes offsets, and the loader, which maps them onto device memory.

A task's args hold logical addresses. Each segment has its own logical base; loading gives each
segment one device block and translates an address by its segment (GE's logical-address
translation at DavinciModel init). Offsets are aligned, and every tensor sized, as GE does.
"""
from __future__ import annotations

from ge_core.graph import GeTensorDesc
from ge_core.graph.ge_tensor import raw_bytes

MEM_ALIGN_SIZE = 512                    # offsets are aligned to this (mem_assigner.h)

FEATURE_MAP_BASE = 0                    # feature map from 0; zero-copy I/O right after it
VAR_BASE = 32 << 30                     # variables (GE: 32 GiB)
WEIGHT_BASE = 48 << 30                  # weights (ours; GE keeps them in their own partition)
HOST_FM_BASE = 64 << 30                 # host feature map (GE: 64 GiB)
FEATURE_MAP_SPAN = VAR_BASE - FEATURE_MAP_BASE   # a feature map larger would reach the variables


def align(n: int, to: int = MEM_ALIGN_SIZE) -> int:
    return -(-n // to) * to


def tensor_size(desc: GeTensorDesc) -> int:
    """GE's tensor size: raw bytes rounded up to 32, plus 32; an empty tensor takes 32."""
    return align(raw_bytes(desc), 32) + 32
