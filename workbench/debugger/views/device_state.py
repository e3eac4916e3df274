"""The device as the parked run left it, for a face to draw: each stream's SQ window around its
head (the SQE about to execute marked) and its state in words, the execution units busy with
what, the wait-for chain of every blocked stream, and the faults and races found."""
from __future__ import annotations

from dataclasses import dataclass

from npu_emu.cost_model import GANG, Unit
from npu_emu.deadlock import waits_for
from npu_emu.runtime import Runtime
from npu_emu.stream import Stream, StreamState
from npu_emu.task import EVENT_WAIT, NOTIFY_WAIT, Task
from workbench.debugger.program import RunState

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
    queue: str          # "SQ", or "host SQE buffer" while AutoSplit keeps the SQEs on the host
    window: tuple[SqEntry, ...]


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


def _label_of(t: Task) -> str:
    label = getattr(t, "label", None)
    if label is not None:
        return f"L{label.id}"
    labels = getattr(t, "labels", None)
    return ",".join(f"L{x.id}" for x in labels) if labels else ""


def state_words(s: Stream) -> str:
    """running, idle, ready, inactive, blocked on event N / notify M, waiting for a unit; and
    "at label L" when the SQE at the head sets or switches on a label."""
    if s.state == StreamState.BLOCKED and s.waiting is not None:
        t = s.waiting
        if t.kind == EVENT_WAIT:
            return f"blocked on event {t.event_id}"
        if t.kind == NOTIFY_WAIT:
            return f"blocked on notify {t.notify_id}"
        units = t.units if t.unit == GANG else (t.unit,)
        return "waiting for a free " + "+".join(Unit(u).name for u in units)
    head = s.sq[s.head] if s.head < len(s.sq) else None
    words = {StreamState.RUNNING: f"running {head.name}" if head is not None else "running",
             StreamState.READY: "ready", StreamState.IDLE: "idle",
             StreamState.INACTIVE: "inactive"}.get(s.state, s.state.name.lower())
    label = _label_of(head) if head is not None and s.state != StreamState.INACTIVE else ""
    return f"{words}, at label {label}" if label else words


def stream_columns(rt: Runtime, state: RunState | None = None, before: int = 2,
                   after: int = 8) -> list[StreamColumn]:
    nodes = node_of_task(state)
    columns = []
    for s in _streams(rt):
        queue, where = s.sq, "SQ"
        if not s.sq and s.host_buffer:
            queue, where = s.host_buffer, "host SQE buffer"
        head = s.head if queue is s.sq else 0
        window = []
        for i in range(max(0, head - before), min(len(queue), head + after + 1)):
            t = queue[i]
            mark = DONE if i < head else ""
            if i == head and queue is s.sq:
                mark = RUNNING if s.state == StreamState.RUNNING else NEXT
            window.append(SqEntry(t.pos, t.type.name.lower(), t.name, nodes.get(id(t), ""),
                                  mark))
        model = ""
        if s.model is not None:
            model = f"m{s.model.id}" + (" head" if s in s.model.head_streams else "")
        columns.append(StreamColumn(s.device.id, s.id, state_words(s), s.base + head,
                                    s.base + len(queue), model, where, tuple(window)))
    return columns


def busy_units(rt: Runtime) -> list[UnitUse]:
    """Each unit kind of each device: how many there are and which SQEs hold one now."""
    out = []
    for d in rt.devices.values():
        busy: dict[int, list[str]] = {}
        for s in d.scheduler.streams:
            if s.state != StreamState.RUNNING or s.head >= len(s.sq):
                continue
            t = s.sq[s.head]
            for u in (t.units if t.unit == GANG else (t.unit,) if t.unit >= 0 else ()):
                busy.setdefault(u, []).append(f"{t.name} (s{s.id} SQE {t.pos})")
        for unit, total in sorted(d.cost.units.items()):
            out.append(UnitUse(unit.name, total, tuple(busy.get(int(unit), ()))))
    return out


def wait_for_chain(rt: Runtime) -> list[str]:
    """For each blocked stream: the SQE it waits at and why that wait cannot pass yet."""
    lines = []
    for d in rt.devices.values():
        for s in d.scheduler.streams:
            if s.state == StreamState.BLOCKED and s.waiting is not None \
                    and s.waiting.kind in (EVENT_WAIT, NOTIFY_WAIT):
                lines.append(f"stream {s.id} waits at {s.waiting.where()} for "
                             f"{waits_for(d.scheduler, s.waiting)}")
    return lines


def races(rt: Runtime) -> list[tuple[str, str, str]]:
    """Each race's two accesses and the bytes they share (while the race check runs)."""
    detector = rt.race_detector
    if detector is None:
        return []
    return [(r.first, r.second, f"[{r.addr:#x}, +{r.nbytes})") for r in detector.races]


def faults(rt: Runtime, state: RunState | None) -> list[str]:
    """The faults found so far: placed in the host program's source once the run has ended."""
    if state is not None and state.faults:
        return list(state.faults)
    return [f"{f.kind}: {f.message}" for f in rt.faults]
