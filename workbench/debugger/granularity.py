"""Stepping units. `step KIND` stops at the next unit of that kind anywhere; `next` stops at the
next one in the same frame, stepping over the finer events nested in between: node passes
inside a pass, a subgraph's node visits, other streams' SQEs.

    stage   a compile stage begins           (StageBegin)
    pass    a pass begins, or a node pass inside one    next: only whole passes
    node    a pass visits a node, or the executor runs one   next: a new node, same graph
    task    GE distributes a task to a stream (DistributeTask)   next: same stream
    sqe     the device retires an SQE        next: same stream
    line    a host program is about to run a Python line   next: not into calls it makes
    event   any trace event (one tick)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ge_core.events import FusionMatched, TaskDistributed
from ge_core.executor.events import NodeExecuted
from ge_core.passes.events import NodeVisited, PassBegin
from ge_core.stage_events import StageBegin
from npu_emu.base.trace import TraceEvent
from npu_emu.scheduler.events import SqeCompleted
from workbench.debugger.targets.host_lines import HostLine

if TYPE_CHECKING:
    from workbench.debugger.tracker import Tracker

UnitTest = Callable[[TraceEvent, "Tracker"], bool]


def always(e: TraceEvent, t: Tracker) -> bool:
    return True


def inner_pass_began(e: TraceEvent, t: Tracker) -> bool:
    """A node pass inside a pass group begins (its first node visit)."""
    return t.inner_began


def stream_of(e: TraceEvent) -> int | None:
    task = getattr(e, "task", None)
    if task is not None and task.stream is not None:
        return task.stream.id
    return getattr(e, "stream_id", None)


@dataclass(frozen=True)
class Granularity:
    name: str
    units: dict[str, UnitTest]          # kind -> is this event a unit?
    frame: Callable[[TraceEvent | None, Tracker], object] | None = None
    next_units: Callable[[object], dict[str, UnitTest]] | None = None  # frame -> units

    def units_for_next(self, event: TraceEvent | None, tracker: Tracker) -> dict[str, UnitTest]:
        if self.next_units is None:
            return self.units
        return self.next_units(self.frame(event, tracker) if self.frame else None)


def _same_graph(graph: object) -> dict[str, UnitTest]:
    """A new node in ``graph`` (in any graph when there is no current one)."""
    return {NodeVisited.__name__: lambda e, t: t.node_began and graph in (None, e.graph),
            NodeExecuted.__name__: lambda e, t: graph in (None, e.graph)}


def _same_stream(kind: str) -> Callable[[object], dict[str, UnitTest]]:
    return lambda stream: {kind: lambda e, t: stream is None or stream_of(e) == stream}


GRANULARITIES: dict[str, Granularity] = {g.name: g for g in (
    Granularity("stage", {StageBegin.__name__: always}),
    Granularity("pass", {PassBegin.__name__: always,
                         NodeVisited.__name__: inner_pass_began},
                next_units=lambda frame: {PassBegin.__name__: always}),
    Granularity("node", {NodeVisited.__name__: always, NodeExecuted.__name__: always,
                         FusionMatched.__name__: always},
                lambda e, t: t.node_graph or None, _same_graph),
    Granularity("task", {TaskDistributed.__name__: always},
                lambda e, t: stream_of(e), _same_stream(TaskDistributed.__name__)),
    Granularity("sqe", {SqeCompleted.__name__: always},
                lambda e, t: stream_of(e), _same_stream(SqeCompleted.__name__)),
    Granularity("line", {HostLine.__name__: always}, lambda e, t: t.host_depth or None,
                lambda depth: {HostLine.__name__: lambda e, t: depth is None or e.depth <= depth}),
    Granularity("event", {}),   # every tick: stepped by tick, not by kind
)}
EVERY_EVENT = "event"


def recording(kind: str, test: UnitTest | None) -> str | None:
    """A granularity whose units include every event of ``kind`` that passes ``test`` (None:
    every event of it), so the history's ticks of it hold all of them; None if none does."""
    for g in GRANULARITIES.values():
        unit = g.units.get(kind)
        if unit is always or (unit is not None and unit is test):
            return g.name
    return None
