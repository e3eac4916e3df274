"""GraphPass: a pass that needs the whole graph at once (GE's passes/graph_pass.h)."""
from __future__ import annotations

from typing import ClassVar, Generator

from ge_core.graph import ComputeGraph, Node


class GraphPass:
    """Subclasses set ``name`` (GE's pass name) and implement ``run``, returning whether they
    changed the graph. The manager also checks the graph's edit counts, so a pass that
    under-reports still shows as changed."""

    name: ClassVar[str] = ""
    covers_subgraphs: ClassVar[bool] = False  # True: the manager need not run it on subgraphs
    warnings: list[str]  # set fresh by the manager before each run

    def run(self, graph: ComputeGraph) -> bool:
        raise NotImplementedError

    def details(self) -> tuple[tuple[str, int], ...]:
        """Edits per inner pass, for a pass that groups others (see NodePassGroup)."""
        return ()

    def walk(self, graph: ComputeGraph) -> Generator[tuple[str, Node], None, bool]:
        """``run`` as a generator of (pass name, node) visits; a whole-graph pass has none.
        Returns (as StopIteration's value) whether the pass changed the graph."""
        return self.run(graph)
        yield  # unreachable: its presence makes this a generator

    def __repr__(self) -> str:
        return f"<{self.name or type(self).__name__}>"
