"""The IR's mutation events: what the debugger's node and attribute watches see."""
from __future__ import annotations

from dataclasses import dataclass

from npu_emu.base.hot_event import hot_event
from npu_emu.base.trace import TraceEvent


@hot_event
@dataclass(frozen=True, slots=True)
class NodeAdded(TraceEvent):
    graph: str
    node: str
    op_type: str


@hot_event
@dataclass(frozen=True, slots=True)
class NodeRemoved(TraceEvent):
    graph: str
    node: str


@hot_event
@dataclass(frozen=True, slots=True)
class AnchorLinked(TraceEvent):
    src: str  # "node:idx" for data, "node:ctrl" for control
    dst: str


@hot_event
@dataclass(frozen=True, slots=True)
class AnchorUnlinked(TraceEvent):
    src: str
    dst: str


@hot_event
@dataclass(frozen=True, slots=True)
class AttrSet(TraceEvent):
    node: str
    key: str
    old: str  # short reprs: an event must print stably and cheaply
    new: str


@hot_event
@dataclass(frozen=True, slots=True)
class DescUpdated(TraceEvent):
    """InferShape changed an output's tensor desc (shape or dtype)."""
    node: str
    output: int
    old: str
    new: str


def short_repr(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
