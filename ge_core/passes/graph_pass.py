"""GraphPass: a pass that needs the whole graph at once (GE's passes/graph_pass.h)."""
from __future__ import annotations

import copy
from typing import Callable, ClassVar, Generator, Iterator, TypeVar

from ge_core.graph import ComputeGraph, Node
from ge_core.graph.graph_clone import copied_one_level, deep_copy, shallow_copy
from ge_core.graph.journal import SHARED

POSITION_NODES = 128   # nodes between two places a walk over a graph may be resumed from
# ... or ticks, for a GEPass walk, whichever comes first: a visit of InferShapeForPreprocess is
# ~30 ticks, so 128 of them, 3840 ticks, were 100-140 ms to step back over at tick 1M of a
# 40k-node compile, with no place a checkpoint could split them
POSITION_TICKS = 1024
POSITION = ("", None)  # what a pass's walk yields there
R = TypeVar("R")


def finished(walk: Generator[object, None, R]) -> R:
    """Run a pass's walk to its end: what it returns."""
    while True:
        try:
            next(walk)
        except StopIteration as stop:
            return stop.value


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


Visit = Callable[[Node, dict], bool]   # a node and what the loop keeps by key -> changed?


@copied_one_level   # its list and dict hold nodes, and keys and values it never changes in place
class NodeLoop:
    """A loop over a graph's nodes as state a checkpoint copies (a whole-graph pass's, engine
    placement's): the nodes in the order fixed when it began, how many are done, what it keeps
    by key, and whether it changed the graph."""

    def __init__(self, nodes: list[Node]) -> None:
        self.nodes = nodes
        self.done = 0
        self.kept: dict = {}
        self.changed = False

    def visits(self, visit: Visit) -> Iterator[None]:
        """``visit`` each node not done yet, yielding every POSITION_NODES nodes: a copy of
        the loop taken there goes on with ``visits`` again."""
        nodes, kept = self.nodes, self.kept
        while self.done < len(nodes):
            node = nodes[self.done]
            self.done += 1
            if visit(node, kept):
                self.changed = True
            if self.done % POSITION_NODES == 0 and self.done < len(nodes):
                yield

    def __deepcopy__(self, memo: dict) -> "NodeLoop":
        """A checkpoint's copy (SHARED) copies the loop one level; a copy of its own (a look
        beside the run) leaves out the nodes done, a None in each one's place: the pass may
        have merged them away, and copying one copies its desc and weights. Any other field
        (a subclass's) is shared: it is never changed."""
        if SHARED in memo:
            return shallow_copy(self, memo)
        new = copy.copy(self)
        memo[id(self)] = new
        new.nodes = [None] * self.done + [deep_copy(n, memo) for n in self.nodes[self.done:]]
        new.kept = deep_copy(self.kept, memo)
        return new


class NodeLoopPass(GraphPass):
    """A GraphPass that looks at the graph's nodes one by one (``visit``), so that its walk can
    be resumed every POSITION_NODES nodes: a debugger's checkpoint may sit inside it (at 20k
    nodes CSE is 10k ticks, which a re-run covered at 20 us a tick to go back inside it)."""

    def __init__(self) -> None:
        self.loop: NodeLoop | None = None   # the loop under way

    def order(self, graph: ComputeGraph) -> list[Node]:
        """The nodes to visit, in order."""
        return list(graph)

    def visit(self, node: Node, kept: dict) -> bool:
        """Look at ``node``; ``kept`` is the loop's own (what it has seen, by key). Whether the
        graph changed."""
        raise NotImplementedError

    def run(self, graph: ComputeGraph) -> bool:
        return finished(self.walk(graph))

    def walk(self, graph: ComputeGraph) -> Generator[tuple[str, Node | None], None, bool]:
        self.loop = NodeLoop(self.order(graph))
        # a place after the order is made (CSE's topological sort of 20k nodes, ~40 ms): a
        # checkpoint here spares a step back into the loop from making it again
        yield POSITION
        return (yield from self.resume())

    def resume(self) -> Generator[tuple[str, Node | None], None, bool]:
        """Go on with the loop a copy was taken inside (at a POSITION)."""
        loop = self.loop
        for _ in loop.visits(self.visit):
            yield POSITION
        self.loop = None
        return loop.changed
