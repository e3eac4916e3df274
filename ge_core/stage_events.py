"""Stage events: the coarse steps of GE's work on one graph, what `step stage` stops on.

The compile pipeline's stages (Prepare ... OptimizeStage2), the build's (AssignLogicalStreams
... GenTask) and DavinciModel.init's load stages (InitModelMem ... DoTaskSink) all emit these, so
they live above none of their emitters: the runtime needs them without the compiler.
"""
from __future__ import annotations

from dataclasses import dataclass

from npu_emu.base.trace import TraceEvent


@dataclass(frozen=True, slots=True)
class StageBegin(TraceEvent):
    stage: str
    graph: str


@dataclass(frozen=True, slots=True)
class StageEnd(TraceEvent):
    stage: str
    graph: str
    nodes: int
