"""The device timeline as text lanes: one per stream and one per execution unit, over a window
of emulated time, with the event record -> wait links summarised. The slices come from a
recorder of the current run (the device's events all come after the last checkpoint a re-run
can start from, so a re-run records them all again)."""
from __future__ import annotations

from dataclasses import dataclass

from npu_emu.base.trace import TraceEvent
from npu_emu.scheduler.cost_model import Unit
from npu_emu.scheduler.events import EventRecorded, EventWaitSatisfied, SqeDispatched
from npu_emu.timeline import Timeline
from workbench.debugger.run import Run
from workbench.debugger.stream_names import named_stream
from workbench.debugger.views.run_recorder import RunRecorder

BUSY, IDLE = "#", "."


class LaneRecorder(RunRecorder):
    KINDS = tuple(k.__name__ for k in (SqeDispatched, EventRecorded, EventWaitSatisfied))

    def __init__(self) -> None:
        super().__init__()
        self.timeline = Timeline()
        self.devices: dict[int, dict[Unit, int]] = {}   # device -> its units' counts

    def new_run(self, run: Run) -> None:
        self.timeline = Timeline()
        self.devices = {}

    def record(self, event: TraceEvent) -> None:
        self.timeline(event)
        if isinstance(event, SqeDispatched):   # (kept here: a program's end drops its device)
            device = event.task.stream.device
            if device.id not in self.devices:
                self.devices[device.id] = dict(device.cost.units)

    def cores(self) -> dict[int, int]:
        """Each unit kind: how many there are on the devices that ran an SQE."""
        out: dict[int, int] = {}
        for units in self.devices.values():
            for unit, n in units.items():
                out[int(unit)] = out.get(int(unit), 0) + n
        return out


@dataclass(frozen=True)
class Lane:
    name: str
    sqes: int       # slices that overlap the window
    busy_ns: int    # their time inside it
    cells: str      # one character per column: BUSY, IDLE, or a digit: units of a kind in use
    stream: int | None = None   # a stream's lane: its rt stream (None: a unit's)
    cores: int = 1  # a unit's lane: how many of that unit there are (its name says so)

    def busy_percent(self, start: int, end: int) -> int:
        """Of [start, end): the share of time busy; a unit's, per core (its busy time is
        summed over its cores, so 8 cores at work are 100%, not 800%)."""
        return self.busy_ns * 100 // (max(end - start, 1) * max(self.cores, 1))


def end_ns(tl: Timeline) -> int:
    return max((s[7] for s in tl.slices), default=0)


def lanes(tl: Timeline, start: int, end: int, width: int,
          logical: dict[int, int] | None = None, cores: dict[int, int] | None = None,
          name_width: int = 12, names: dict[int, str] | None = None) -> list[Lane]:
    """Stream lanes then unit lanes over [start, end) ns in ``width`` columns; ``logical``:
    rt stream -> GE's logical stream, and ``names``: rt stream -> a host program's variable,
    to name the lanes as every face names streams; ``cores``: unit -> how many there are,
    named in the unit's lane (``AI_CORE x8``) within ``name_width``."""
    span = max(end - start, 1)
    width = max(width, 1)

    def cols(s0: int, s1: int) -> range:
        a = max(s0, start) - start
        b = min(s1, end) - start
        first = a * width // span
        return range(first, max(b * width // span, first + 1))

    out = []
    inside = [s for s in tl.slices if s[7] > start and s[6] < end]
    for stream in sorted({s[1] for s in tl.slices}):
        cells = [IDLE] * width
        mine = [s for s in inside if s[1] == stream]
        for s in mine:
            for c in cols(s[6], s[7]):
                cells[min(c, width - 1)] = BUSY
        out.append(Lane(named_stream(stream, logical, names, name_width), len(mine),
                        _busy(mine, start, end), "".join(cells), stream))
    for unit in sorted({s[2] for s in tl.slices if s[2] >= 0}):
        counts = [0] * width
        mine = [s for s in inside if s[2] == unit]
        for s in mine:
            for c in cols(s[6], s[7]):
                counts[min(c, width - 1)] += 1
        cells = "".join(IDLE if n == 0 else str(min(n, 9)) for n in counts)
        n = (cores or {}).get(unit, 1)
        count = f" x{n}"
        out.append(Lane(Unit(unit).name[:max(name_width - len(count), 1)] + count, len(mine),
                        _busy(mine, start, end), cells, cores=n))
    return out


def _busy(slices: list, start: int, end: int) -> int:
    return sum(min(s[7], end) - max(s[6], start) for s in slices)


def links(tl: Timeline, logical: dict[int, int] | None = None,
          names: dict[int, str] | None = None,
          events: dict[int, str] | None = None) -> list[str]:
    """Event record -> wait links, one line per (event, recording stream, waiting stream);
    streams and events by a host program's ``names`` and ``events`` where it has them."""
    groups: dict[tuple[int, int, int], list[tuple[int, int]]] = {}
    for event_id, rec_s, rec_ns, wait_s, wait_ns in tl.flows:
        groups.setdefault((event_id, rec_s, wait_s), []).append((rec_ns, wait_ns))
    lines = []
    for (event_id, rec_s, wait_s), times in sorted(groups.items()):
        rec_ns, wait_ns = times[0]
        more = f" (x{len(times)})" if len(times) > 1 else ""
        event = f"{events[event_id]} (event {event_id})" if events and event_id in events \
            else f"event {event_id}"
        lines.append(f"{event}: {named_stream(rec_s, logical, names)} records at {rec_ns} ns "
                     f"-> {named_stream(wait_s, logical, names)} "
                     f"passes its wait at {wait_ns} ns{more}")
    return lines
