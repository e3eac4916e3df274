"""The device as the parked run left it, for a face to draw: each stream's SQ window around its
head (the SQE about to execute marked) with the GE node of each SQE, and its state in words, the
execution units busy with what, the wait-for chain of every blocked stream, and the faults and
races found."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ge_core.events import TaskDistributed
from ge_core.stage_events import StageEnd
from npu_emu.base.trace import TraceEvent
from npu_emu.checkers.deadlock import waits_for
from npu_emu.core.stream import Stream
from npu_emu.feature.model import ModelState
from npu_emu.runtime import Runtime
from npu_emu.scheduler.cost_model import GANG, Unit
from npu_emu.scheduler.events import SqeSubmitted, StreamState
from npu_emu.scheduler.task import EVENT_WAIT, NOTIFY_WAIT, Task, TaskType
from workbench.debugger.run import Run
from workbench.debugger.stream_names import named_stream, stream_label
from workbench.debugger.targets.program import PhaseEnd, RunState
from workbench.debugger.views.run_recorder import RunRecorder

if TYPE_CHECKING:
    from workbench.debugger.handle_names import HandleNames

NEXT, RUNNING, DONE = "next", "running", "done"


@dataclass(frozen=True, slots=True)
class SqEntry:
    pos: int            # the SQE's index in its stream
    task_type: str      # TS task type, lower case (what `break sqe type=` takes)
    name: str
    node: str           # the GE node whose task it is ("" for a host program's)
    mark: str           # NEXT, RUNNING, DONE or ""


@dataclass(frozen=True)
class StreamColumn:
    device: int
    stream: int
    state: str          # in words: "blocked on event 0", "running Conv", "inactive" ...
    head: int           # the next SQE's index
    tail: int           # one past the last SQE queued
    model: str          # "m0 head", "m0", or ""
    queue: str          # "SQ", or "host buffer" while AutoSplit keeps the SQEs on the host
    window: tuple[SqEntry, ...]
    name: str = ""      # a host program's variable holding the stream (handle_names.py)


@dataclass(frozen=True)
class UnitUse:
    unit: str
    total: int
    busy: tuple[str, ...]   # "Conv (s1 SQE 3)"


def _streams(rt: Runtime) -> list[Stream]:
    return [s for d in rt.devices.values() for s in d.scheduler.streams]


def node_of_task(state: RunState | None) -> dict[int, str]:
    """id(task) -> the node GE distributed it for, once the model is loaded."""
    model = state.model if state is not None else None
    infos = getattr(model, "task_infos", ())
    return {id(i.task): i.node.name for i in infos if i.task is not None}


class TaskNodes(RunRecorder):
    """The node of each task GE's load distributes, noted while it distributes them (before
    the load ends nothing else knows): a TaskDistributed names the node and the stream, and
    the task is the newest SQE of that stream's queue by the next event kept here."""
    KINDS = (TaskDistributed.__name__, SqeSubmitted.__name__, StageEnd.__name__, PhaseEnd.__name__)

    def __init__(self) -> None:
        super().__init__()
        self.nodes: dict[int, str] = {}
        self._pending: tuple[int, str] | None = None

    def new_run(self, run: Run) -> None:
        self.nodes, self._pending = {}, None

    def record(self, e: TraceEvent) -> None:
        if self._pending is not None:
            stream_id, node = self._pending
            self._pending = None
            tail = next((s for s in _streams(self.run.world.runtime) if s.id == stream_id), None)
            while tail is not None and tail.slave is not None:   # AutoSplit's newest slave
                tail = tail.slave
            queue = (tail.host_buffer if tail.host_buffer is not None else tail.sq.entries) \
                if tail is not None else None
            if queue:
                self.nodes[id(queue[-1])] = node
        if e.kind == TaskDistributed.__name__:
            self._pending = (e.rt_stream_id, e.node)


def _at_label(t: Task) -> str:
    """What a label SQE at the head does, in words ("" for any other SQE)."""
    label = getattr(t, "label", None)
    if label is not None:
        return f"at label L{label.id}" if t.type == TaskType.LABEL_SET \
            else f"jumping to label L{label.id}"
    labels = getattr(t, "labels", None)
    return "switching to label " + " or ".join(f"L{x.id}" for x in labels) if labels else ""


def state_words(s: Stream, notifies: dict[int, str] | None = None) -> str:
    """running, idle, ready, inactive, blocked on event N / notify M, waiting for a unit; and
    "at label L" when the SQE at the head sets a label (or jumps to one). ``notifies``: what
    a notify is for (a model's end of graph), when known."""
    if s.state == StreamState.BLOCKED and s.waiting is not None:
        t = s.waiting
        if t.kind == EVENT_WAIT:
            return f"blocked on event {t.event_id}"
        if t.kind == NOTIFY_WAIT:
            purpose = (notifies or {}).get(t.notify_id)
            return f"blocked on notify {t.notify_id}" + (f" ({purpose})" if purpose else "")
        units = t.units if t.unit == GANG else (t.unit,)
        return "waiting for a free " + "+".join(Unit(u).name for u in units)
    sq = s.sq
    head = sq.entries[sq.head] if sq.pending else None
    words = {StreamState.RUNNING: f"running {head.name}" if head is not None else "running",
             StreamState.READY: "ready", StreamState.IDLE: "idle",
             StreamState.INACTIVE: "inactive"}.get(s.state, s.state.name.lower())
    label = _at_label(head) if head is not None and s.state != StreamState.INACTIVE else ""
    return f"{words}, {label}" if label else words


def stream_columns(rt: Runtime, nodes: dict[int, str], before: int = 2,
                   after: int = 8) -> list[StreamColumn]:
    """``nodes``: id(task) -> its node (node_of_task, TaskNodes)."""
    notifies = {m.end_notify.id: f"end of model {m.id}" for m in rt.models}
    columns = []
    for s in _streams(rt):
        sq = s.sq
        queue, where, base, head = sq.entries, "SQ", sq.base, sq.head
        on_sq = bool(queue) or s.host_buffer is None
        if not on_sq:
            queue, where, base, head = s.host_buffer, "host buffer", 0, 0
        # a queue being filled (AutoSplit's host buffer, a model's SQ while it is built): its
        # tail, where the SQEs arrive; else around the head, where they are taken
        filling = not on_sq or (s.model is not None and s.model.state is ModelState.BUILDING)
        first = max(0, len(queue) - before - after - 1) if filling else max(0, head - before)
        window = []
        for i in range(first, min(len(queue), first + before + after + 1)):
            t = queue[i]
            mark = DONE if i < head else ""
            if i == head and on_sq and s.state not in (StreamState.INACTIVE, StreamState.IDLE):
                mark = RUNNING if s.state == StreamState.RUNNING else NEXT
            window.append(SqEntry(t.pos, t.type.name.lower(), t.name, nodes.get(id(t), ""),
                                  mark))
        model = ""
        if s.model is not None:
            model = f"m{s.model.id}" + (" head" if s in s.model.head_streams else "")
        columns.append(StreamColumn(s.device.id, s.id, state_words(s, notifies), base + head,
                                    base + len(queue), model, where, tuple(window)))
    return columns


def busy_units(rt: Runtime, logical: dict[int, int] | None = None,
               names: dict[int, str] | None = None) -> list[UnitUse]:
    """Each unit kind of each device: how many there are and which SQEs hold one now, their
    streams by a host program's ``names`` for them."""
    out = []
    for d in rt.devices.values():
        busy: dict[int, list[str]] = {}
        for s in d.scheduler.streams:
            if s.state != StreamState.RUNNING or not s.sq.pending:
                continue
            t = s.sq.entries[s.sq.head]
            for u in (t.units if t.unit == GANG else (t.unit,) if t.unit >= 0 else ()):
                busy.setdefault(u, []).append(
                    f"{t.name} ({named_stream(s.id, logical, names)} SQE {t.pos})")
        for unit, total in sorted(d.cost.units.items()):
            out.append(UnitUse(unit.name, total, tuple(busy.get(int(unit), ()))))
    return out


def wait_for_chain(rt: Runtime, logical: dict[int, int] | None = None) -> list[str]:
    """Once the device found a deadlock: for each stream still stuck in it, the SQE it waits at
    and why that wait can never pass (a stream merely waiting in a healthy run is not one)."""
    lines = []
    for d in rt.devices.values():
        stuck = {b.stream_id for b in d.scheduler.last_deadlock}
        for s in d.scheduler.streams:
            if s.id in stuck and s.state == StreamState.BLOCKED and s.waiting is not None \
                    and s.waiting.kind in (EVENT_WAIT, NOTIFY_WAIT):
                lines.append(f"{stream_label(s.id, logical)} waits at {s.waiting.where()} for "
                             f"{waits_for(d.scheduler, s.waiting)}")
    return lines


def races(rt: Runtime) -> list[tuple[str, str, str]]:
    """Each race's two accesses and the bytes they share (while the race check runs)."""
    detector = rt.race_detector
    if detector is None:
        return []
    return [(r.first, r.second, f"[{r.addr:#x}, +{r.nbytes})") for r in detector.races]


def faults(rt: Runtime, state: RunState | None, names: HandleNames) -> list[str]:
    """The faults found so far, streams and events by the host program's ``names``: once the
    run has ended, as placed in its source (named there already: named again, they read
    `s (s (stream rt1))`)."""
    if state is not None and state.faults:
        return list(state.faults)
    return [names.text(f"{f.kind}: {f.message}") for f in rt.faults]
