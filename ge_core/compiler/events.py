"""Compile-stage events: what `step stage` stops on."""
from __future__ import annotations

from dataclasses import dataclass

from npu_emu.trace import TraceEvent


@dataclass(frozen=True, slots=True)
class StageBegin(TraceEvent):
    stage: str
    graph: str


@dataclass(frozen=True, slots=True)
class StageEnd(TraceEvent):
    stage: str
    graph: str
    nodes: int
