"""One execution of a target's program: a fresh World (docs/architecture.md, one world per run),
its program on a StepGate worker, from the start or from a checkpoint. The debugger keeps one run
current and makes new ones to go back in time or to look at an earlier state."""
from __future__ import annotations

import hashlib
from typing import Any, Callable

from ge_core.graph.journal import journaling
from npu_emu.base.trace import TraceEvent
from npu_emu.world import World
from workbench.debugger.checkpoint import Checkpoint, CheckpointStore
from workbench.debugger.program_output import OutputBuffer, captured_output
from workbench.debugger.step_gate import StepGate
from workbench.debugger.targets import Target
from workbench.debugger.targets.program import Position, RunState, run_phases
from workbench.debugger.tracker import Tracker


class Run:
    def __init__(self, target: Target, start: Checkpoint | None, store: CheckpointStore,
                 trace_hash: bool = False, beside: bool = False) -> None:
        """A run from ``start`` (None: the start) of the checkpoints in ``store``. A run of the
        current line (the debugger's current run and its re-runs) goes on from the live graph,
        rewound, and offers ``store`` checkpoints; one ``beside`` the line (a look at an earlier
        tick, a replay) gets a copy of its own and offers none."""
        self.target = target
        self.world = World(target.runtime_config())
        self.state: RunState | None = None       # made on the worker, before its first event
        self.tracker = start.tracker.copy() if start is not None else Tracker()
        self.output = OutputBuffer()
        self._reported = 0   # failed facade calls reported so far
        self.hasher: Any | None = None
        self._observers: list[Callable[[TraceEvent], None]] = []   # on the world's bus
        if trace_hash:
            self.hasher = start.hasher.copy() if start is not None else hashlib.sha256()
            self._observe(self._hash)
        self._start = start
        self._store = store
        self._beside = beside
        if target.runs_code:   # a model has no program to tell: no call per event for it
            self._observe(self._to_program)   # before the gate (subscribes on start)
        self.gate = StepGate(self._main, self.world.bus)

    @property
    def tick(self) -> int:
        return self.world.bus.tick

    @property
    def start_tick(self) -> int:
        """The tick of the checkpoint this run resumed from (0: it ran from the start)."""
        return self._start.tick if self._start is not None else 0

    @property
    def parked_at(self) -> TraceEvent | None:
        return self.gate.parked_at

    @property
    def finished(self) -> bool:
        return self.gate.finished

    @property
    def started(self) -> bool:
        return self.state is not None

    def trace_hash(self) -> str | None:
        return self.hasher.hexdigest() if self.hasher is not None else None

    def take_output(self) -> str:
        return self.output.take()

    def take_failed_calls(self) -> list[str]:
        """A host program's failed facade calls not yet reported, each placed in the script."""
        program = self.state.program if self.state is not None else None
        if program is None:
            return []
        new = program.failed_calls[self._reported:]
        self._reported = len(program.failed_calls)
        return [text for text, _ in new]

    def close(self) -> None:
        self.gate.close()

    def discard(self) -> None:
        """Close the run and free its state now, once nothing will read it again. A run beside
        the line has its graphs' reference cycles broken (ComputeGraph.discard), so reference
        counting frees them as they are dropped rather than leaving a compile's worth of
        garbage to the cyclic collector (a full collection of a few closed runs' graphs took
        0.5-0.9 s at 5k nodes); a run of the line leaves its graph to the line. A worker that
        did not stop (a target stuck where no event comes) keeps its state."""
        self.close()
        state = self.state
        if not self.finished or state is None:
            return
        self.state = None
        if self._beside:
            state.discard()
        # the world's bus holds this run's observers, and the run its world (device memory
        # with the model's weights): a cycle left to the collector otherwise
        for observer in self._observers:
            self.world.bus.unsubscribe(observer)
        self._observers.clear()   # bound methods of this run: a cycle of its own
        self.world.discard()   # its devices' memory: 2 GiB each, in the runtime's own cycles

    def _observe(self, observer: Callable[[TraceEvent], None]) -> None:
        self.world.bus.subscribe(observer)
        self._observers.append(observer)

    def _main(self) -> None:
        bus, start, store = self.world.bus, self._start, self._store
        if not self._beside and start is None:
            store.release()   # a line from the start: the old one's checkpoints are moot
        with captured_output(self.output), self.world.entered(), \
                journaling(None if self._beside else store.journal):
            if start is not None:
                self.state = store.materialise(start, bus) if self._beside \
                    else store.resume(start, bus)
                bus.tick, bus.work = start.tick, start.work
                position = start.position
            else:
                self.state = self.target.new_state()
                if not self._beside:
                    store.begin_line(self.state)
                position = (0, 0)
            run_phases(self.target.phases, self.state, bus, position, self._boundary)

    def _to_program(self, event: TraceEvent) -> None:
        """A host program's observer sees each event before the gate may park on it."""
        program = self.state.program if self.state is not None else None
        if program is not None:
            program(event)

    def _boundary(self, position: Position) -> None:
        if not self._beside:
            self._store.offer(self, position)

    def _hash(self, event: TraceEvent) -> None:
        self.hasher.update(event.describe().encode())
        self.hasher.update(b"\n")
