"""The session the app drives and the recorders its panes read (no Textual here): what changed
in the last step, the pass spans, the device timeline, the node of each distributed task.
Attached to whichever debugger and target the session has now."""
from __future__ import annotations

from dataclasses import dataclass

from workbench.commands.session import DebugSession
from workbench.debugger.engine import Debugger
from workbench.debugger.outcomes import Finished, Outcome, Stopped
from workbench.debugger.targets.target_kind import TargetKind
from workbench.debugger.views.device_state import TaskNodes
from workbench.debugger.views.pass_tree import PassSpans
from workbench.debugger.views.step_changes import ChangeRecorder, StepChanges
from workbench.debugger.views.timeline_lanes import LaneRecorder

REEXECUTED = ("goto", "reverse")   # stop reasons after which the last events were a re-run


@dataclass(frozen=True)
class Status:
    target: str = "no target"
    kind: TargetKind | None = None
    phase: str = ""
    granularity: str = ""
    tick: int = 0
    reason: str = ""
    finished: bool = False
    started: bool = False


class SessionViews:
    def __init__(self, session: DebugSession) -> None:
        self.session = session
        self.changes = ChangeRecorder()
        self.spans = PassSpans()
        self.lanes = LaneRecorder()
        self.task_nodes = TaskNodes()
        self.reason = ""
        self.reexecuted = False

    @property
    def debugger(self) -> Debugger | None:
        return self.session.debugger

    def attach(self) -> None:
        """Hook the recorders on the session's debugger (after `target` made or changed it)."""
        d = self.debugger
        if d is None:
            return
        for recorder in (self.changes, self.spans, self.lanes, self.task_nodes):
            recorder.attach(d)

    def answered(self, outcomes: list[Outcome]) -> None:
        """Note the last stop's reason (the status bar's) and whether it was a re-run."""
        for o in outcomes:
            if isinstance(o, Stopped):
                self.reason = "; ".join(r.text for r in o.reasons)
                self.reexecuted = any(r.kind in REEXECUTED for r in o.reasons)
            elif isinstance(o, Finished):
                self.reason = "finished"
                self.reexecuted = False

    def step_changes(self) -> StepChanges | None:
        """What the last command changed in the graph; None when it is not known (a re-run,
        or a new run nothing has resumed yet)."""
        d = self.debugger
        if d is None or not self.changes.current(d) or self.reexecuted:
            return None
        return self.changes.changes

    def status(self) -> Status:
        d = self.debugger
        if d is None:
            return Status()
        run = d.run
        return Status(d.target.path.name, d.target.kind, run.tracker.phase or "", d.granularity,
                      run.tick, self.reason, run.finished, run.started)
