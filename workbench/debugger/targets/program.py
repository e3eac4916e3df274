"""A target's program: named phases run in order on the debugger's worker thread.

An ONNX model's program is parse > compile > execute (build and load join when GE's builder and
loader land); a host program's is one phase. Each phase is a function of the run's state; a
resumable one is a generator that yields a position at each point where a copy of the state may
be taken and later resumed from (a checkpoint, see debugger/checkpoint.py). Phase boundaries are
trace events, so `where`, `finish` and reverse stepping see them like any other.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from npu_emu.base.trace import TraceBus, TraceEvent
from workbench.debugger.targets.settings import Settings

if TYPE_CHECKING:
    from ge_core.compiler import CompilePipeline
    from ge_core.compiler.memory.mem_map import MemoryPlan
    from ge_core.compiler.model_builder import BuildResult
    from ge_core.executor import HostExecutor
    from ge_core.graph import ComputeGraph, Node
    from ge_core.parser import Parsing
    from ge_core.om.ge_model import GeModel
    from ge_core.passes import PassRecord
    from ge_core.runtime.v1.davinci_model import DavinciModel
    from workbench.debugger.targets.host_runner import HostProgramObserver


@dataclass(frozen=True, slots=True)
class PhaseBegin(TraceEvent):
    phase: str


@dataclass(frozen=True, slots=True)
class PhaseEnd(TraceEvent):
    phase: str


@dataclass
class RunState:
    """Everything the phases make and hand on; a checkpoint is a copy of it."""
    source: Path
    settings: Settings
    graph: ComputeGraph | None = None     # as the parser builds it, then as compiled
    parsing: Parsing | None = None        # the parse under way
    pipeline: CompilePipeline | None = None
    built: BuildResult | None = None
    build_passes: list[PassRecord] = field(default_factory=list)   # as each build pass ends
    memory_plan: MemoryPlan | None = None   # once the build's AssignMemory has made it
    ge_model: GeModel | None = None       # what load loads: the build's, or an OM file's
    model: DavinciModel | None = None     # loaded on the run's device
    executor: HostExecutor | None = None
    outputs: dict[str, Any] | None = None
    exit_status: int = 0
    error: str = ""
    traceback: tuple[str, ...] = ()   # a host program's own, when an exception ended it
    faults: list[str] = field(default_factory=list)
    program: HostProgramObserver | None = None   # a host program's: its SQEs' and faults' lines

    def host_where(self, event: TraceEvent | None) -> str:
        """A host program's ``file:line in function`` behind ``event`` ("" for a model)."""
        return self.program.where(event) if self.program is not None else ""

    def graphs(self) -> list[ComputeGraph]:
        """The live graphs: the root and, while it is partitioned, each engine subgraph."""
        if self.graph is None:
            return []
        parts = self.pipeline.parts if self.pipeline is not None else []
        return [self.graph] + [p.graph for p in parts]

    def family(self) -> list[ComputeGraph]:
        """Every graph of the run, each once: the root, the bodies it owns, and while it is
        partitioned the engine subgraphs (which share the root's bodies)."""
        graphs = self.graphs()
        return [*graphs[:1], *(graphs[0].subgraphs if graphs else ()), *graphs[1:]]

    def find_node(self, name: str) -> Node | None:
        for graph in self.family():
            node = graph.find_node(name)
            if node is not None:
                return node
        return None

    def discard(self) -> None:
        """Break every graph's reference cycles (ComputeGraph.discard): nothing reads them
        again, and reference counting frees them at once."""
        for graph in self.family():
            graph.discard()


Position = tuple[int, int]   # (phase index, position inside the phase); (i, 0) = its start
PhaseFn = Callable[[RunState, int], "Iterator[int] | None"]
Boundary = Callable[[Position], None]


@dataclass(frozen=True)
class Phase:
    name: str
    run: PhaseFn   # (state, start position) -> None, or positions where it may be resumed
    # A checkpoint copies the run's state, not the device: once a phase has put something on
    # the device, the phases after it cannot be resumed from a copy.
    resumable_start: bool = True


def run_phases(phases: tuple[Phase, ...], state: RunState, bus: TraceBus, start: Position,
               boundary: Boundary) -> None:
    """Run ``phases`` from ``start``, calling ``boundary`` at every resumable position."""
    index, pos = start
    for i in range(index, len(phases)):
        phase = phases[i]
        if pos == 0:
            bus.emit(PhaseBegin, phase.name)
        positions = phase.run(state, pos)
        for p in positions or ():
            boundary((i, p))
        bus.emit(PhaseEnd, phase.name)
        pos = 0
        if i + 1 == len(phases) or phases[i + 1].resumable_start:
            boundary((i + 1, 0))
