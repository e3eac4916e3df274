"""PassManager: an ordered list of named GraphPasses run over a graph and its subgraphs
(GE's passes/pass_manager.cc). Each run is recorded as plain data for the pass table and
announced on the trace bus so the debugger can stop per pass."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterator

from ge_core.graph import ComputeGraph
from ge_core.graph.compute_graph import EditCounts
from ge_core.passes.events import PassBegin, PassEnd, Step
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
    type_delta: tuple[tuple[str, int], ...] = ()  # node-type histogram change, by type
    detail: tuple[tuple[str, int], ...] = ()      # edits per inner pass of a group


class PassManager:
    def __init__(self, stage: str = "", history: list[PassRecord] | None = None) -> None:
        """``history``: where the records go, e.g. a pipeline's result, so that one who looks
        while a stage runs (a debugger parked at PassEnd) sees the passes done so far."""
        self.stage = stage
        self.passes: list[tuple[str, GraphPass]] = []
        self.history: list[PassRecord] = [] if history is None else history
        self.current: GraphPass | None = None   # the pass running (a debugger looks at it)
        # Where iter_run stands, so a copy taken at a "position" step resumes there: the
        # (pass, graph) under way, and that pass's edit counts when it began.
        self.at = (0, 0)
        self.before: EditCounts | None = None
        self.began = 0   # the bus's tick when that pass began
        # the graphs that pass runs on, as they were when it began: a pass that adds or drops
        # subgraphs (MultiBatchClonePass) must not change the list its resumed copy goes on with
        self.graphs: list[ComputeGraph] | None = None

    def add_pass(self, name: str, graph_pass: GraphPass) -> "PassManager":
        self.passes.append((name, graph_pass))
        return self

    def run(self, graph: ComputeGraph) -> bool:
        """Run every pass on ``graph`` then on each of its subgraphs; True if any changed it."""
        changed = False
        for step in self.iter_run(graph, node_steps=False):
            if step.kind == "pass":
                changed |= self.history[-1].changed
        return changed

    def iter_run(self, graph: ComputeGraph, node_steps: bool = True) -> Iterator[Step]:
        """``run`` as a generator: a "node" step per node-pass visit (unless ``node_steps`` is
        False: the same walk, only the steps are not made), a "pass" step after each pass (its
        record is then ``history[-1]``), and a "position" step where a copy of the manager
        (with the graph) may be resumed by calling ``iter_run`` on the copy."""
        first, first_graph = self.at
        try:
            for i in range(first, len(self.passes)):
                name, graph_pass = self.passes[i]
                graphs = self.graphs if i == first and self.graphs is not None else \
                    [graph] + ([] if graph_pass.covers_subgraphs or graph.parent_graph
                               else graph.subgraphs)
                self.graphs = graphs
                for j in range(first_graph if i == first else 0, len(graphs)):
                    self.at = (i, j)
                    yield from self._iter_one(name, graph_pass, graphs[j], node_steps)
                    # past it, so a copy taken here goes on with the next: a pass list over
                    # thousands of small engine subgraphs has no walk long enough to hold one
                    self.at = (i, j + 1)
                    yield Step("position", self.stage, name, graphs[j].name)
                self.graphs = None
        except Exception:   # a pass failed: the next run starts afresh, not inside that pass
            self.at, self.before, self.current, self.graphs = (0, 0), None, None, None
            raise
        self.at = (0, 0)   # a manager may run again, on another graph

    def _iter_one(self, name: str, graph_pass: GraphPass, graph: ComputeGraph,
                  node_steps: bool) -> Iterator[Step]:
        bus = graph.bus
        resuming = self.before is not None   # a copy taken at a position inside this pass
        if not resuming:
            bus.emit(PassBegin, self.stage, name, graph.name)
            self.before = graph.edits.snapshot()
            self.began = bus.tick
            graph_pass.warnings = []
        self.current = graph_pass
        before = self.before
        start = time.perf_counter()
        if node_steps:
            walk = graph_pass.resume() if resuming else graph_pass.walk(graph)
            while True:
                try:
                    pass_name, node = next(walk)
                except StopIteration as stop:
                    said = stop.value
                    break
                if node is None:   # a place the walk may be resumed from
                    yield Step("position", self.stage, name, graph.name)
                else:
                    yield Step("node", self.stage, pass_name, graph.name, node.name)
        else:   # the same walk, unstepped: a GEPass then spares each visit its generators
            said = graph_pass.run(graph)
        seconds = time.perf_counter() - start
        self.current = None
        self.before = None
        d = graph.edits.since(before)
        # a pass reads every node at least once: what its events did not count is work
        bus.work += max(0, len(graph) - (bus.tick - self.began))
        changed = bool(said) or d.any
        relinked = d.edges_linked + d.edges_unlinked
        self.history.append(PassRecord(self.stage, name, graph.name, changed, d.nodes_added,
                                       d.nodes_removed, relinked, len(graph), seconds,
                                       tuple(graph_pass.warnings), tuple(sorted(d.types.items())),
                                       graph_pass.details()))
        bus.emit(PassEnd, self.stage, name, graph.name, changed, d.nodes_added, d.nodes_removed,
                 relinked)
        yield Step("pass", self.stage, name, graph.name)
