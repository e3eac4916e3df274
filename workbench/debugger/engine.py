"""The debugger engine: one target, the current run of it, breakpoints, watches and the stepping
unit. Every method takes plain arguments and returns outcomes; nothing here reads a terminal.

Going forward resumes the current run until the stop table says stop. Going back (reverse-step,
reverse-continue, goto an earlier tick) is re-execution (docs/architecture.md invariant 3): a new
run from the newest checkpoint before the target tick, with only the tick as its stop, so it lands
on exactly the state a forward run had there.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace
from types import FrameType
from typing import Callable, Iterator

from ge_core.passes.events import PassEnd
from ge_core.stage_events import StageEnd
from npu_emu.base.trace import TraceEvent
from npu_emu.feature.model import ModelAborted, ModelFinished
from workbench.debugger.breakpoints import Breakpoint, BreakpointError, parse_breakpoint
from workbench.debugger.checkpoint import Checkpoint, CheckpointStore
from workbench.debugger.collector import dropped, re_executing, thaw
from workbench.debugger.fault_stops import ACL_ERROR, FaultStops
from workbench.debugger.granularity import (EVERY_EVENT, GRANULARITIES, UnitTest,
                                            recording)
from workbench.debugger.handle_names import HandleNames
from workbench.debugger.history import History
from workbench.debugger.listen import install
from workbench.debugger.outcomes import (Error, Finished, Outcome, Printed, ProgramOutput,
                                         StopReason, Stopped)
from workbench.debugger.reaper import Reaper
from workbench.debugger.run import Run
from workbench.debugger.stop_table import StopTable, UnitCount
from workbench.debugger.stream_names import event_text
from workbench.debugger.targets import Target
from workbench.debugger.targets.host_lines import HostLine
from workbench.debugger.targets.program import PhaseEnd, RunState
from workbench.debugger.views import graph_views
from workbench.debugger.views.host_source import code_lines
from workbench.debugger.views.summary import finish_summary
from workbench.debugger.watches import Watch, WatchError, parse_watch

Extra = Callable[[StopTable, Run], None]


class Debugger:
    def __init__(self, target: Target, trace_hash: bool = False,
                 checkpoint_gap: int | None = None, fault_stops: FaultStops | None = None
                 ) -> None:
        self.target = target
        self.trace_hash = trace_hash
        self.breakpoints: dict[int, Breakpoint] = {}
        self.watches: dict[int, Watch] = {}
        self.fault_stops = fault_stops if fault_stops is not None else FaultStops()
        self.granularity = target.granularity
        self.history = History()
        self.checkpoints = CheckpointStore(len(target.phases), checkpoint_gap)
        self.reaper = Reaper()   # what a step back lets go is freed once the stop is shown
        self._next_id = 1
        # Faces' observers of the current run (the TUI's views): given each stop table the run
        # gets, they add checks that only record, never stop. Side runs (diff, replay) get none.
        self.recorders: list[Extra] = []
        self.frame = 0   # the selected host frame (`up`, `down`): 0 is the innermost
        self.run = self._new_run()

    # -- the current run -----------------------------------------------------------------------
    @property
    def tick(self) -> int:
        return self.run.tick

    @property
    def state(self) -> RunState | None:
        return self.run.state

    def close(self) -> None:
        self.reaper.wait(hurry=True)
        self.run.close()
        self.checkpoints.release()
        thaw()   # what it froze is garbage now, or another debugger's to freeze again

    def interrupt(self) -> None:
        """Park a running `continue` at its next event (from any thread)."""
        self.run.gate.interrupt()

    def restart(self) -> list[Outcome]:
        dropped(self.run)
        self.run = self._new_run()
        self._sync_watches()
        return [Printed("restarted: not started (tick 0)")]

    def retarget(self, target: Target) -> None:
        """A new target or new settings: a fresh start, keeping breakpoints and watches."""
        dropped(self.run)
        self.target = target
        self.granularity = target.granularity
        self.history = History()
        self.checkpoints.release()
        self.checkpoints = CheckpointStore(len(target.phases), self.checkpoints.gap)
        for item in [*self.breakpoints.values(), *self.watches.values()]:
            item.hits = 0
        self.run = self._new_run()
        self._sync_watches()

    def _new_run(self, tick: int | None = None, beside: bool = False) -> Run:
        """A run to ``tick`` (None: from the start) of the current line, which only starts once
        the line's current run is closed (checkpoint.py: they share the live graph), or one
        ``beside`` it."""
        return Run(self.target, self._start_for(tick, beside), self.checkpoints,
                   self.trace_hash, beside)

    def _start_for(self, tick: int | None, beside: bool = False) -> Checkpoint | None:
        """The checkpoint a run to ``tick`` goes on from. A run of the line goes on from none
        while the worker of the run it replaces has not stopped (stuck where no event comes:
        StepGate.close): it could still write to the live graph a resumed run rewinds, so the
        line starts afresh."""
        current = getattr(self, "run", None)
        if tick is None or not beside and current is not None and not current.finished:
            return None
        return self.checkpoints.before(tick)

    # -- forward -------------------------------------------------------------------------------
    def _use_unit(self, granularity: str | None) -> Error | None:
        """Make ``granularity`` (if given) the stepping unit; an Error if there is none such."""
        if granularity is not None:
            if granularity not in GRANULARITIES:
                return Error(f"no stepping unit {granularity!r} ({', '.join(GRANULARITIES)})")
            self.granularity = granularity
        return None

    def step(self, granularity: str | None = None, count: int = 1) -> list[Outcome]:
        error = self._use_unit(granularity)
        if error is not None:
            return [error]
        reason = StopReason("step", f"step {self.granularity}")
        if self.granularity == EVERY_EVENT:
            return self._resume(tick_target=self.tick + count, target_reason=reason)
        return self._resume(_units(GRANULARITIES[self.granularity].units, count, reason))

    def next(self, count: int = 1, granularity: str | None = None) -> list[Outcome]:
        error = self._use_unit(granularity)
        if error is not None:
            return [error]
        gran = GRANULARITIES[self.granularity]
        reason = StopReason("next", f"next {gran.name}")
        if gran.name == EVERY_EVENT:
            return self._resume(tick_target=self.tick + count, target_reason=reason)
        units = gran.units_for_next(self.run.parked_at, self.run.tracker)
        return self._resume(_units(units, count, reason))

    def cont(self) -> list[Outcome]:
        return self._resume()

    def finish(self) -> list[Outcome]:
        end = self._innermost_end()
        if end is None:
            return [Error("finish: not inside a function, phase, stage, pass or model "
                          "execution")]
        kinds, test, what = end
        reason = StopReason("finish", f"finish: end of {what}")
        return self._resume(_units({k: test for k in kinds}, 1, reason))

    def _innermost_end(self) -> tuple[tuple[str, ...], UnitTest, str] | None:
        t, parked = self.run.tracker, self.run.parked_at
        frames = self.state.program.live_frames() if self.state and self.state.program else []
        if len(frames) > 1:   # inside a function of the host program: back in its caller
            depth, name = len(frames), frames[0].f_code.co_name
            return ((HostLine.__name__,), lambda e, _: e.depth < depth,
                    f"function {name}")
        if t.pass_name and not isinstance(parked, PassEnd):
            name, graph = t.pass_name, t.pass_graph
            return ((PassEnd.__name__,), lambda e, _: (e.pass_name, e.graph) == (name, graph),
                    f"pass {name}")
        if t.stage and not isinstance(parked, StageEnd):
            stage = t.stage
            return (StageEnd.__name__,), lambda e, _: e.stage == stage, f"stage {stage}"
        running = [m for m in self.run.world.runtime.models if m.running]
        if running:
            mid = running[0].id
            return ((ModelFinished.__name__, ModelAborted.__name__),
                    lambda e, _: e.model_id == mid, f"model {mid}'s execution")
        if t.phase and not isinstance(parked, PhaseEnd):
            phase = t.phase
            return (PhaseEnd.__name__,), lambda e, _: e.phase == phase, f"phase {phase}"
        return None

    def run_to_tick(self, tick: int) -> list[Outcome]:
        if tick <= self.tick:
            return [Error(f"run-to {tick}: the target is already at tick {self.tick} "
                          f"(goto goes back)")]
        return self._resume(tick_target=tick, target_reason=StopReason("run-to",
                                                                       f"run-to tick {tick}"))

    def run_to(self, words: list[str]) -> list[Outcome]:
        """Run to a place given like a breakpoint (`run-to pass PrunePass`), once."""
        try:
            bp = parse_breakpoint(0, words)
        except BreakpointError as exc:   # its usage names the command typed, not `break`
            raise BreakpointError(str(exc).replace("usage: break ", "usage: run-to ", 1)) \
                from None
        reason = StopReason("run-to", f"run-to {bp.text}")
        return self._resume(lambda table, run: install(
            bp.entries(lambda b, e, reasons: reasons.append(reason)), table, run.tracker))

    # -- back ----------------------------------------------------------------------------------
    def goto(self, tick: int, reason: StopReason | None = None) -> list[Outcome]:
        if tick < 0:
            return [Error(f"goto {tick}: ticks start at 0")]
        if tick == 0:
            return self.restart()
        reason = reason or StopReason("goto", f"goto tick {tick}")
        if not self.run.finished and tick > self.tick:
            outcomes = self._resume(tick_target=tick, target_reason=reason, stops=False)
        else:
            # the run going back replaces is closed inside the pause (its worker unwinding
            # never resumes the collector: collector.py) and discarded once the re-run is parked;
            # what the re-run's resume lets go is freed once it has landed (after the landing's
            # freeze, which a collection the reaper makes would otherwise hold up)
            old, garbage = self.run, []
            try:
                with re_executing(), self.checkpoints.freeing_later() as garbage:
                    old.close()   # its worker gone before the re-run starts (they share the graph)
                    self.run = self._new_run(tick)
                    try:
                        outcomes = self._resume(tick_target=tick, target_reason=reason,
                                                stops=False, show_output=False)
                    finally:
                        dropped(old)
            finally:
                self.reaper.free_later(garbage)
        self._sync_watches()
        return outcomes

    def reverse_step(self, granularity: str | None = None, count: int = 1) -> list[Outcome]:
        error = self._use_unit(granularity)
        if error is not None:
            return [error]
        gran = self.granularity
        target = self.history.before(gran, self.tick, count)
        if target is None:
            return [Error(f"reverse-step: no earlier {gran} before tick {self.tick}")]
        return self.goto(target, StopReason("reverse", f"reverse-step {gran}"))

    def reverse_continue(self) -> list[Outcome]:
        # One pause over every stretch's re-run and the last one to the hit: between stretches
        # the collector would rescan what each left (a closed run's graph) for nothing. The
        # scans are runs of the line, so the current run is closed first; with no hit, the
        # line goes back to where it was.
        now = self.tick
        none = [Error(f"reverse-continue: no breakpoint hit before tick {now}")]
        units = self._recorded_as_units()
        if units is not None and self.history.latest(units, now) is None:
            return none
        with re_executing():
            self.run.close()
            try:
                found = self._last_hit_before(now)
            except BaseException:   # the scans moved the live graph: back to where it was
                self.goto(now)
                raise
            if found is None:
                self.goto(now)
                return none
            tick, bp, parked = found
            reason = StopReason("reverse", f"reverse-continue: breakpoint {bp.id} ({bp.text})",
                                bp.id)
            if parked is None:
                return self.goto(tick, reason)
            # the scan stopped on the hit itself: it is where we land (the swap first, as
            # goto's: an interrupt in the drop leaves the landing run current)
            old, self.run = self.run, parked
            dropped(old)
            parked.take_output()   # as goto's re-run: what the program printed was shown
            self.frame = 0
            self._sync_watches()
            event = parked.parked_at
            return [Stopped(event.tick, event_text(event), (reason,), self.where(event))]

    def _last_hit_before(self, tick: int) -> tuple[int, Breakpoint, Run | None] | None:
        """The last breakpoint hit before ``tick``, and the scan's run if it is parked on it.

        Scans go back from the newest checkpoint, one stretch between checkpoints at a time,
        until a stretch has a hit (or the start is reached). When every enabled breakpoint hears
        only events the history records as units (passes, stages, nodes, tasks, SQEs, lines:
        granularity.py), a scan runs only over stretches that hold such a unit, and only up to
        the last one; most often the hit is that unit, and the scan is parked on it. So going
        back to a hit costs one re-run from the checkpoint before it, however far back it is."""
        granularities = self._recorded_as_units()
        last = tick - 1   # the last tick the stretch scans
        while last >= 1:
            if granularities is not None:   # skip to the last unit a breakpoint may hit on
                unit = self.history.latest(granularities, last + 1)
                if unit is None:
                    return None
                last = unit
            start = self._start_for(last)   # a stretch of at least one event
            hits, scan = self._scan_hits(start, last)
            if hits:
                hit, bp = hits[-1]
                if hit == scan.tick:
                    return hit, bp, scan
                dropped(scan)
                return hit, bp, None
            dropped(scan)
            if start is None:
                return None
            last = start.tick
        return None

    def _recorded_as_units(self) -> set[str] | None:
        """The granularities whose units hold every event an enabled breakpoint hears, or None
        if one hears events the history does not record."""
        found: set[str] = set()
        for bp in self.breakpoints.values():
            for listen in bp.listens if bp.enabled else ():
                name = recording(listen.kind, listen.test)
                if name is None:
                    return None
                found.add(name)
        return found

    def _scan_hits(self, start: Checkpoint | None, last: int
                   ) -> tuple[list[tuple[int, Breakpoint]], Run]:
        """The breakpoint hits of a re-run from ``start`` to tick ``last``, and the re-run,
        parked there (the caller closes it or makes it the current run: the faces' recorders
        watch it as they would goto's re-run)."""
        hits: list[tuple[int, Breakpoint]] = []

        def hit(bp: Breakpoint, e: TraceEvent, reasons: list, error: str = "") -> None:
            hits.append((e.tick, bp))   # a condition that failed stopped a forward run too

        def note(table: StopTable, run: Run) -> None:
            for bp in self.breakpoints.values():
                if bp.enabled:
                    install(bp.entries(hit, hit), table, run.tracker)
        scan = Run(self.target, start, self.checkpoints, self.trace_hash)
        try:
            with re_executing():
                _run_until(scan, self._table(scan, stops=False, extra=note, record=True), last)
        except BaseException:
            scan.discard()
            raise
        return [(t, bp) for t, bp in hits if t <= last], scan

    def replay_with(self, observers: list[Callable[[TraceEvent], None]]) -> None:
        """Re-run from the start to the current tick (or the end) with extra observers: how
        views that need every event from tick 1 get them without slowing every run."""
        if not self.run.started:
            return
        replay = self._new_run(beside=True)
        for observer in observers:
            replay.world.bus.subscribe(observer)
        try:
            target = None if self.run.finished else self.tick
            with re_executing():
                _run_until(replay, self._table(replay, stops=False), target)
        finally:
            replay.discard()

    @contextmanager
    def state_at(self, tick: int) -> Iterator[Run]:
        """A run parked at ``tick`` to look at (the current one, or a re-run discarded after:
        what the caller reads of its state, it reads inside the block)."""
        if tick == self.tick and self.run.started:
            yield self.run
            return
        side = self._new_run(tick, beside=True)
        try:
            with re_executing():
                _run_until(side, self._table(side, stops=False), tick)
            yield side
        finally:
            side.discard()

    # -- a host program's frames ---------------------------------------------------------------
    def host_frames(self) -> list[FrameType]:
        """The parked host program's frames, innermost first (none for a model, or when the
        program is not parked inside its script)."""
        program = self.state.program if self.state is not None else None
        if program is None or self.run.finished:
            return []
        return program.live_frames()

    def where(self, event: TraceEvent) -> str:
        """phase > line > stage > pass > node > model > rt_stream > SQE, a host program's
        streams by its names."""
        run = self.run
        return self.handle_names().text(run.tracker.where(event, run.state.host_where(event)))

    def handle_names(self) -> HandleNames:
        """A host program's names for its streams and events (none for a model)."""
        program = self.state.program if self.state is not None else None
        return program.names if program is not None else HandleNames()

    # -- breakpoints and watches ---------------------------------------------------------------
    def add_breakpoint(self, words: list[str]) -> Breakpoint:
        bp = parse_breakpoint(self._next_id, words)
        self._check_line(bp)
        self._next_id += 1
        self.breakpoints[bp.id] = bp
        return bp

    def add_watch(self, words: list[str]) -> Watch:
        watch = parse_watch(self._next_id, words)
        if watch.node is not None:
            self._check_node(watch.node)
        self._next_id += 1
        watch.sync(self.state, self.run.world.runtime)
        self.watches[watch.id] = watch
        return watch

    def _check_line(self, bp: Breakpoint) -> None:
        """`break FILE:LINE` in the host program names a line where a statement starts."""
        name, _, line = bp.spec.rpartition(":")
        if not (self.target.runs_code and line.isdecimal() and name.endswith(".py")):
            return
        if name != self.target.path.name:   # the line hook traces the program's own frames
            raise BreakpointError(f"break {bp.spec}: only lines of {self.target.path.name}, "
                                  f"the program, can break")
        lines = code_lines(self.target.path)
        if lines and int(line) not in lines:
            after = [n for n in sorted(lines) if n > int(line)]
            hint = f" (the next one is {after[0]})" if after else ""
            raise BreakpointError(f"break {bp.spec}: no statement starts on line {line}{hint}")

    def _check_node(self, name: str) -> None:
        """A node watch names a node of the live graph. Before the model is parsed there is no
        graph to check against (the face says so); a host program never has one."""
        if self.target.runs_code:
            raise WatchError(f"watch node {name}: {self.target.path.name} is a host program, "
                             f"with no graph (watch event, notify or stream)")
        state = self.state
        if state is not None and state.graph is not None and state.find_node(name) is None:
            raise WatchError(f"watch node {name}: "
                             f"{graph_views.no_such_node(state, name).message}")

    def find(self, ident: int) -> Breakpoint | Watch | None:
        return self.breakpoints.get(ident) or self.watches.get(ident)

    def delete(self, ident: int) -> bool:
        return (self.breakpoints.pop(ident, None) or self.watches.pop(ident, None)) is not None

    def _sync_watches(self) -> None:
        for w in self.watches.values():
            w.sync(self.state, self.run.world.runtime)

    # -- the resume loop -----------------------------------------------------------------------
    def _table(self, run: Run, stops: bool = True, extra: Extra | None = None,
               record: bool = False) -> StopTable:
        """Tracker first (the others read it), then history, then what may stop the run. The
        faces' recorders watch the current run, and a run that may become it (``record``)."""
        table = StopTable(run.tracker)
        table.add_all(run.tracker.checks(), run.tracker.on_fields())
        self.history.watch(table)
        if stops:
            def hit(bp: Breakpoint, e: TraceEvent, reasons: list[StopReason]) -> None:
                reasons.append(StopReason("breakpoint", f"breakpoint {bp.id} ({bp.text})", bp.id))
            install([entry for bp in self.breakpoints.values() if bp.enabled
                     for entry in bp.entries(hit)], table, run.tracker)
            install([entry for w in self.watches.values() if w.enabled
                     for entry in w.entries(lambda: run.state, run.world.runtime)],
                    table, run.tracker)
            self.fault_stops.install(table)
        if run is self.run or record:
            for recorder in self.recorders:
                recorder(table, run)
        if extra is not None:
            extra(table, run)
        return table

    def _resume(self, extra: Extra | None = None, tick_target: int | None = None,
                target_reason: StopReason | None = None, stops: bool = True,
                show_output: bool = True) -> list[Outcome]:
        run = self.run
        if run.finished:
            return [Error(f"the target has finished (tick {run.tick}): use goto, reverse-step "
                          f"or restart")]
        self.frame = 0
        table = self._table(run, stops, extra)
        try:
            with run.gate.parking_on_ctrl_c():   # Ctrl-C in a face: park the target, keep it alive
                event = _run_until(run, table, tick_target)
        except KeyboardInterrupt:   # one that reached us anyway (a face's own handler)
            run.gate.interrupt()
            event = run.gate.wait()
        outcomes: list[Outcome] = []
        output = run.take_output()
        if output and show_output:
            outcomes.append(ProgramOutput(output))
        shown = not self.fault_stops.hidden(ACL_ERROR)
        if shown and show_output:
            outcomes += [Printed(f"warning: {text}") for text in run.take_failed_calls()]
        if event is None:
            outcomes.append(Finished(run.tick, finish_summary(run, shown)))
            return outcomes
        reasons = table.reasons
        if not reasons:   # no check stopped it: the tick was reached, or a face interrupted
            reached = tick_target is not None and event.tick >= tick_target
            reasons = [target_reason if reached and target_reason is not None
                       else StopReason("interrupt", "interrupted")]
        outcomes.append(Stopped(event.tick, event_text(event),
                                tuple(self._count_hit(r) for r in reasons),
                                self.where(event)))
        return outcomes

    def _count_hit(self, reason: StopReason) -> StopReason:
        if reason.kind == "breakpoint":
            bp = self.breakpoints[reason.ident]
            bp.hits += 1
            return replace(reason, text=f"{reason.text}, hit {bp.hits}")
        if reason.kind == "watch":
            self.watches[reason.ident].hits += 1
        return reason


def _run_until(run: Run, table: StopTable, tick_target: int | None) -> TraceEvent | None:
    """Resume ``run`` until ``table`` says stop (or at ``tick_target``), handing its gate only
    the events the table's checks hear."""
    return run.gate.run_until(table.predicate(tick_target), table.hears(tick_target))


def _units(units: dict[str, UnitTest], count: int, reason: StopReason) -> Extra:
    """Stop at the ``count``-th event that ``units`` calls a unit."""
    def extra(table: StopTable, run: Run) -> None:
        counted = UnitCount(count, reason)
        for kind, is_unit in units.items():
            table.add_unit_count(kind, is_unit, counted)
    return extra
