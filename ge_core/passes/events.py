"""Pass events: what `step pass`, `step node` and `break pass NAME` stop on."""
from __future__ import annotations

from dataclasses import dataclass

from npu_emu.base.hot_event import hot_event
from npu_emu.base.trace import TraceEvent


@hot_event
@dataclass(frozen=True, slots=True)
class PassBegin(TraceEvent):
    stage: str
    pass_name: str
    graph: str


@hot_event
@dataclass(frozen=True, slots=True)
class PassEnd(TraceEvent):
    stage: str
    pass_name: str
    graph: str
    changed: bool
    nodes_added: int
    nodes_removed: int
    edges_relinked: int


@hot_event
@dataclass(frozen=True, slots=True)
class NodeVisited(TraceEvent):
    """A node pass about to look at a node (GEPass calls every node pass on every node)."""
    pass_name: str
    graph: str
    node: str
    op_type: str


@dataclass(frozen=True, slots=True)
class Step:
    """What a pipeline driver sees between two steps (plain data, not a trace event)."""
    kind: str   # "stage", "pass", "node", or "position": a place a copy may be resumed from
    stage: str
    name: str   # the stage's or pass's name
    graph: str
    node: str = ""
