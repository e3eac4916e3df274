"""PassManager: an ordered list of named GraphPasses run over a graph and its subgraphs
(GE's passes/pass_manager.cc). Each run is recorded as plain data for the pass table and
announced on the trace bus so the debugger can stop per pass."""
from __future__ import annotations

import time
from dataclasses import dataclass

from ge_core.graph import ComputeGraph
from ge_core.passes.events import PassBegin, PassEnd
from ge_core.passes.graph_pass import GraphPass


@dataclass(frozen=True, slots=True)
class PassRecord:
    stage: str
    name: str
    graph: str
    changed: bool
    nodes_added: int
    nodes_removed: int
    edges_relinked: int
    nodes_after: int
    seconds: float  # wall time: for the pass table only, never in the trace
    warnings: tuple[str, ...] = ()


class PassManager:
    def __init__(self, stage: str = "") -> None:
        self.stage = stage
        self.passes: list[tuple[str, GraphPass]] = []
        self.history: list[PassRecord] = []

    def add_pass(self, name: str, graph_pass: GraphPass) -> "PassManager":
        self.passes.append((name, graph_pass))
        return self

    def run(self, graph: ComputeGraph) -> bool:
        """Run every pass on ``graph`` then on each of its subgraphs; True if any changed it."""
        changed = False
        for name, graph_pass in self.passes:
            subgraphs = [] if graph_pass.covers_subgraphs or graph.parent_graph else graph.subgraphs
            for g in [graph] + subgraphs:
                changed |= self.run_one(name, graph_pass, g)
        return changed

    def run_one(self, name: str, graph_pass: GraphPass, graph: ComputeGraph) -> bool:
        bus = graph.bus
        bus.emit(PassBegin, self.stage, name, graph.name)
        before = graph.edits.snapshot()
        graph_pass.warnings = []
        start = time.perf_counter()
        said = graph_pass.run(graph)
        seconds = time.perf_counter() - start
        d = graph.edits.since(before)
        changed = bool(said) or d.any
        relinked = d.edges_linked + d.edges_unlinked
        self.history.append(PassRecord(self.stage, name, graph.name, changed, d.nodes_added,
                                       d.nodes_removed, relinked, len(graph), seconds,
                                       tuple(graph_pass.warnings)))
        bus.emit(PassEnd, self.stage, name, graph.name, changed, d.nodes_added, d.nodes_removed,
                 relinked)
        return changed
