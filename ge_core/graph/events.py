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


@dataclass(frozen=True, slots=True)
class GraphAttrSet(TraceEvent):
    """An attribute of a graph itself changed (ComputeGraph.set_attr, del_attr: new None), not
    of a node: the model's stream, event and label numbers, its head streams, a branch deferred
    to run-time InferShape. Its own class, not an AttrSet, because AttrSet's readers (a node's
    attr watch, the graph pane's cells) key on a node's name, which a graph's may equal."""
    graph: str
    key: str
    old: str  # short reprs, as AttrSet's
    new: str


@dataclass(frozen=True, slots=True)
class TypeSet(TraceEvent):
    """A node in a graph became another op type in place (OpDesc.set_type, GE's
    OpDescUtilsEx::SetType): a Merge made a StreamMerge."""
    node: str
    old: str
    new: str


@hot_event
@dataclass(frozen=True, slots=True)
class DescUpdated(TraceEvent):
    """A tensor desc of a node in a graph changed (OpDesc.update_input_desc/update_output_desc):
    InferShape's outputs and the consumers' inputs it updates, a pass's new or reshaped one."""
    node: str
    io: str   # "input" or "output"
    index: int
    old: str  # the descs as printed (dtype and shape, or absent)
    new: str


def short_repr(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
