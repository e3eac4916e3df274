"""MemAssigner: what every feature-map assigner does (GE's mem_assigner.h).

An assigner reads a MemAssistInfo and returns a FmLayout: an offset in the feature map for every
item, and the feature map's size. The hybrid runs several and keeps the smallest.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ge_core.compiler.memory.mem_assist_info import MemAssistInfo


@dataclass(frozen=True)
class FmLayout:
    assigner: str
    total: int                 # feature-map bytes, a multiple of MEM_ALIGN_SIZE
    offsets: dict[str, int]    # item key -> offset from the feature map's base


class MemAssigner(Protocol):
    name: str

    def assign(self, info: MemAssistInfo) -> FmLayout: ...
