"""GraphMemSplitter: the feature map cut into sub memories, each flagged when it holds memory
whose address must stay fixed (GE's graph_mem_splitter.cc).

HCCL's ops kernel builder marks every collective op _is_fixed_addr_prior
(hcom_ops_kernel_builder.cc): the communication library registers their buffers once, so the
model must not move them. A block any such op touches makes its sub memory fixed. Walking the
blocks by offset, GE starts a new sub memory at a block at least kSubMemoryMaximumSize (200 MiB)
past the current one's start; a feature map of at most that size stays one sub memory
(AddIoMemoryInfo). At load a user may provide the fixed sub memories' memory
(SetGraphFixedFeatureMemoryBase); the model then allocates only the rest (DavinciModel::
InitFixedFeatureMap, ge_core/runtime/model_memory.py). The sub memories travel in the model as
GE's ATTR_MODEL_SUB_MEMORY_INFO, one [mem_type, base, size, is_fixed_addr_prior] per sub memory.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

SUB_MEMORY_MAXIMUM_SIZE = 200 * 1024 * 1024   # GE's kSubMemoryMaximumSize
RT_MEMORY_HBM = 0x2


@dataclass(frozen=True)
class SubMemoryInfo:
    base: int            # offset in the feature map
    size: int
    fixed: bool          # is_fixed_addr_prior

    def encode(self) -> str:
        return f"{RT_MEMORY_HBM},{self.base},{self.size},{int(self.fixed)}"


def split(blocks: Iterable[tuple[int, bool]], total: int,
          split_size: int = SUB_MEMORY_MAXIMUM_SIZE) -> tuple[SubMemoryInfo, ...]:
    """``blocks``: (offset, fixed) of each placed item; ``total``: the feature map's bytes."""
    blocks = sorted(blocks)
    if total <= split_size:
        return (SubMemoryInfo(0, total, any(f for _, f in blocks)),) if total else ()
    infos: list[SubMemoryInfo] = []
    head, fixed = 0, False
    for offset, is_fixed in blocks:
        if offset - head >= split_size:
            infos.append(SubMemoryInfo(head, offset - head, fixed))
            head, fixed = offset, False
        fixed = fixed or is_fixed
    infos.append(SubMemoryInfo(head, total - head, fixed))
    return tuple(i for i in infos if i.size > 0)


def encode(infos: Iterable[SubMemoryInfo]) -> str:
    return ";".join(i.encode() for i in infos)


def decode(text: str) -> tuple[SubMemoryInfo, ...]:
    out = []
    for part in filter(None, text.split(";")):
        _, base, size, fixed = (int(v) for v in part.split(","))
        out.append(SubMemoryInfo(base, size, bool(fixed)))
    return tuple(out)
