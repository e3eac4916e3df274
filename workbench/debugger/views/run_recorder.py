"""A face's recorder of the debugger's current run. The debugger hands each recorder in
``Debugger.recorders`` every stop table it builds for its current run; the recorder adds checks
for the event kinds it keeps (they only record: a stop table dispatches by kind, so the run pays
one call per kept event and nothing for the rest). It sees each command's events as they pass,
and starts afresh when the debugger moved to a new run (restart, goto, reverse: re-execution)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from npu_emu.base.trace import TraceEvent
from workbench.debugger.stop_table import FieldsStops, StopTable

if TYPE_CHECKING:
    from workbench.debugger.engine import Debugger
    from workbench.debugger.run import Run


class RunRecorder:
    KINDS: tuple[str, ...] = ()

    def __init__(self) -> None:
        self.run: Run | None = None
        self.generation = 0   # bumped at each command that resumed the run

    def __call__(self, table: StopTable, run: Run) -> None:
        if run is not self.run:
            self.run = run
            self.new_run(run)
        self.generation += 1
        self.new_command()
        for kind in self.KINDS:
            table.add(kind, self.check(kind), self.on_fields(kind))

    def check(self, kind: str) -> Callable[[TraceEvent, list], None]:
        """The stop table's check for events of ``kind``: ``record`` them, by default."""
        return self._check

    def on_fields(self, kind: str) -> FieldsStops | None:
        """Its form on the event's tick and fields, if it has one (StopTable.add)."""
        return None

    def _check(self, event: TraceEvent, reasons: list) -> None:
        self.record(event)

    def attach(self, debugger: Debugger) -> None:
        if self not in debugger.recorders:
            debugger.recorders.append(self)

    def current(self, debugger: Debugger) -> bool:
        """Whether what this recorder holds is about the debugger's current run."""
        return self.run is debugger.run

    # -- what a recorder does --------------------------------------------------------------------
    def new_run(self, run: Run) -> None:
        """The debugger moved to another run: forget what was about the last one."""

    def new_command(self) -> None:
        """A command resumes the run."""

    def record(self, event: TraceEvent) -> None:
        raise NotImplementedError
