"""The device timeline and the trace export. Both need every event from the start, so rather
than recording during every run (a cost on the hot path) they replay the run to the current
tick with their observers attached: determinism makes the replay the same run."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Callable

from ge_core.passes.events import PassBegin, PassEnd
from ge_core.stage_events import StageBegin, StageEnd
from npu_emu.base.counted import counted
from npu_emu.base.trace import TraceEvent
from npu_emu.timeline import Timeline
from workbench.debugger.views.timeline_lanes import end_ns, lanes
from workbench.debugger.outcomes import Outcome, Printed, TableOutcome
from workbench.debugger.targets.program import PhaseBegin, PhaseEnd

if TYPE_CHECKING:
    from workbench.debugger.engine import Debugger

BAR = 48
GE_PID = 1000   # the compiler's lanes, after the devices' pids


class CompileSpans:
    """Phases, stages and passes as spans of ticks, for the export."""

    _LEVEL = {PhaseBegin: 0, PhaseEnd: 0, StageBegin: 1, StageEnd: 1, PassBegin: 2, PassEnd: 2}

    def __init__(self) -> None:
        self.spans: list[tuple[int, str, int, int]] = []   # level, name, begin, end tick
        self._open: dict[int, tuple[str, int]] = {}

    def __call__(self, e: TraceEvent) -> None:
        level = self._LEVEL.get(type(e))
        if level is None:
            return
        name = getattr(e, "pass_name", None) or getattr(e, "stage", None) or e.phase
        if isinstance(e, (PhaseBegin, StageBegin, PassBegin)):
            self._open[level] = (name, e.tick)
        elif level in self._open:
            begin_name, begin = self._open.pop(level)
            self.spans.append((level, begin_name, begin, e.tick))


def _replayed(debugger: Debugger) -> tuple[Timeline, CompileSpans]:
    timeline, spans = Timeline(), CompileSpans()
    debugger.replay_with([timeline, spans])
    return timeline, spans


def timeline(debugger: Debugger) -> Outcome:
    tl, _ = _replayed(debugger)
    if not tl.slices:
        return Printed("no SQE has run on the device yet")
    end = end_ns(tl) or 1
    # the app's timeline pane's stream lanes, over the whole run, as a table
    rows = tuple((lane.name, str(lane.sqes), str(lane.busy_ns), lane.cells)
                 for lane in lanes(tl, 0, end, BAR, debugger.run.tracker.bound, name_width=0,
                                   names=debugger.handle_names().streams)
                 if lane.stream is not None)
    return TableOutcome(f"device timeline, 0 .. {end} ns", ("stream", "SQEs", "busy ns",
                                                           f"0 {'-' * (BAR - 4)} {end} ns"),
                        rows)


def export_trace(debugger: Debugger, save: Callable[[str], None], shown: str) -> Outcome:
    tl, spans = _replayed(debugger)
    trace: dict[str, Any] = tl.to_chrome()
    events = trace["traceEvents"]
    events.append({"ph": "M", "name": "process_name", "pid": GE_PID,
                   "args": {"name": "GE (ticks as us)"}})
    for level, name in ((0, "phases"), (1, "stages"), (2, "passes")):
        events.append({"ph": "M", "name": "thread_name", "pid": GE_PID, "tid": level,
                       "args": {"name": name}})
    for level, name, begin, end in spans.spans:
        events.append({"name": name, "cat": "ge", "ph": "X", "pid": GE_PID, "tid": level,
                       "ts": begin, "dur": max(end - begin, 1)})
    save(json.dumps(trace))
    return Printed(f"trace written to {shown}: {counted(len(tl.slices), 'SQE')}, "
                   f"{counted(len(spans.spans), 'compile span')}")
