"""The pipeline as a tree: each stage (compile, build, load) with the passes it ran, whether each
changed the graph, its node delta and time, and where the target is now; and the IR diff of any
pass, before -> after, re-executed from the debugger's checkpoints.

Spans are kept by tick: runs are deterministic, so a span seen by one run holds for every re-run
(a reverse step does not lose the passes it goes back over, it only hides those now ahead).
A pass's time is the CPU time of the run's thread between its PassBegin and PassEnd: the thread
waits without CPU while the target is parked, so a pass stepped through is timed as well as one
run through (a pass record's wall time would count the user's pause)."""
from __future__ import annotations

import difflib
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ge_core.graph import dump_graph
from ge_core.passes.events import PassBegin, PassEnd
from ge_core.stage_events import StageBegin, StageEnd
from npu_emu.base.trace import TraceEvent
from workbench.debugger.outcomes import Error, Outcome, Printed
from workbench.debugger.run import Run
from workbench.debugger.views.run_recorder import RunRecorder

if TYPE_CHECKING:
    from workbench.debugger.engine import Debugger


@dataclass(frozen=True)
class PassSpan:
    stage: str
    name: str
    graph: str
    begin: int                # the tick of its PassBegin
    end: int | None = None    # of its PassEnd; None while it runs
    changed: bool = False
    added: int = 0
    removed: int = 0
    seconds: float | None = None   # CPU seconds of the run's thread (not in the trace)

    @property
    def delta(self) -> int:
        return self.added - self.removed


@dataclass
class StageSpan:
    name: str
    begin: int
    end: int | None = None
    passes: list[PassSpan] = field(default_factory=list)


class PassSpans(RunRecorder):
    KINDS = tuple(k.__name__ for k in (StageBegin, StageEnd, PassBegin, PassEnd))

    def __init__(self) -> None:
        super().__init__()
        self.target = None
        self.stages: dict[int, StageSpan] = {}    # by begin tick
        self.passes: dict[int, PassSpan] = {}     # by begin tick
        self._open_pass: int | None = None
        self._open_stage: int | None = None
        self._began_cpu = 0.0   # the run thread's CPU time at the open pass's PassBegin

    def new_run(self, run: Run) -> None:
        if run.target is not self.target:   # another target or new settings: another program
            self.target = run.target
            self.stages, self.passes = {}, {}
        self._open_pass = self._open_stage = None

    def record(self, e: TraceEvent) -> None:
        if isinstance(e, PassBegin):
            self.passes[e.tick] = PassSpan(e.stage, e.pass_name, e.graph, e.tick)
            self._open_pass, self._began_cpu = e.tick, time.thread_time()
        elif isinstance(e, PassEnd):
            begin = self._open_pass
            if begin is not None and begin in self.passes:
                self.passes[begin] = replace(self.passes[begin], end=e.tick, changed=e.changed,
                                             added=e.nodes_added, removed=e.nodes_removed,
                                             seconds=time.thread_time() - self._began_cpu)
            self._open_pass = None
        elif isinstance(e, StageBegin):
            self.stages[e.tick] = StageSpan(e.stage, e.tick)
            self._open_stage = e.tick
        elif self._open_stage is not None and self._open_stage in self.stages:   # StageEnd
            self.stages[self._open_stage].end = e.tick
            self._open_stage = None


def pass_tree(spans: PassSpans, tick: int) -> list[StageSpan]:
    """The stages and passes begun up to ``tick``; a pass still open there has no end."""
    stages: list[StageSpan] = []
    begins = sorted(b for b in spans.stages if b <= tick)
    for begin in sorted(b for b in spans.passes if b <= tick):
        span = spans.passes[begin]
        if span.end is not None and span.end > tick:
            span = replace(span, end=None, seconds=None)
        while begins and begins[0] <= begin:
            s = spans.stages[begins.pop(0)]
            stages.append(StageSpan(s.name, s.begin, s.end if s.end and s.end <= tick else None))
        if not stages:   # a pass outside any stage (none today): a stage of its own name
            stages.append(StageSpan(span.stage, begin))
        stages[-1].passes.append(span)
    for b in begins:   # stages begun with no pass yet
        s = spans.stages[b]
        stages.append(StageSpan(s.name, s.begin, s.end if s.end and s.end <= tick else None))
    return stages


def ir_diff(debugger: Debugger, name: str, graph: str, begin: int, end: int,
            label: str) -> Outcome:
    """The unified diff of ``graph``'s IR dump at tick ``begin`` and at tick ``end``."""
    from workbench.debugger.views.graph_views import find_graph
    texts = []
    for tick in (begin, end):
        with debugger.state_at(tick) as run:
            g = find_graph(run.state, graph) if run.state is not None else None
            texts.append(dump_graph(g).splitlines() if g is not None else [])
    lines = list(difflib.unified_diff(texts[0], texts[1], f"{graph} before {name}",
                                      f"{graph} after {name} {label}", n=0, lineterm=""))
    if not lines:
        return Printed(f"{name} ({label}) did not change graph {graph}")
    return Printed("\n".join(lines), style="diff")


def span_diff(debugger: Debugger, span: PassSpan) -> Outcome:
    """The diff of one pass of the tree (so far, if the target is inside it)."""
    if span.begin > debugger.tick:
        return Error(f"{span.name} has not run yet at tick {debugger.tick}")
    end, label = (span.end, "ran") if span.end is not None else (debugger.tick, "so far")
    diff = ir_diff(debugger, span.name, span.graph, span.begin, end, label)
    if span.changed and isinstance(diff, Printed) and diff.style != "diff":
        # the pass returned "changed" for what the IR dump does not hold (a logical stream
        # pass's stream subgraphs): the tree's `changed` column says yes, so say why both hold
        return Printed(f"{diff.text}'s IR; the pass reports a change to state the IR dump "
                       f"does not show")
    return diff
