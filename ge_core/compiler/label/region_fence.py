"""The fence that makes a lowered region one step of its graph's program order
(ge_core/compiler/label/label_maker.py): whatever the region reads from outside runs before
its head, and every other node that launches work after its tail, through control edges to
the first of each chain of them (a node none of whose inputs is after the tail itself).

Each fence would read the whole graph: the head's ancestors, and every other node. A graph's
regions are lowered in topological order, and what one fence establishes holds for the next:
all the nodes it put before the tail (the head's ancestors and the region) are ancestors of
any later region's head, since that lies after the tail; and whatever lies after the tail
descends from the firsts it linked. So ``RegionFences`` keeps, per graph, the nodes before
the last tail (a set closed under inputs) and its firsts, and the next fence reads only the
new ancestors of its head and the nodes next to what it moved before its tail (4000 Ifs in a
chain read 16k nodes each). A graph edited in between by other means (StreamSwitchN's gears,
fenced by their own rule) forgets what it kept and is read whole again.
"""
from __future__ import annotations

from typing import Iterable

from ge_core.compiler.task.task_builder import task_count
from ge_core.graph import ComputeGraph, Node


def idle_source(node: Node) -> bool:
    """A constant or a graph input: it launches nothing, so where it sorts is no matter, and
    the build orders assume such nodes have no inputs: they stay out of the chain."""
    return not node.in_nodes() and task_count(node) == 0


class _Fenced:
    """What the fences of one graph established: every node before the last tail (closed under
    inputs), and the firsts after it."""
    __slots__ = ("before", "firsts")

    def __init__(self, before: set[Node], firsts: list[Node]) -> None:
        self.before = before
        self.firsts = firsts


class RegionFences:
    def __init__(self) -> None:
        self._graphs: dict[ComputeGraph, _Fenced] = {}

    def forget(self, graph: ComputeGraph) -> None:
        """``graph`` was edited otherwise than by fences: its next fence reads it whole."""
        self._graphs.pop(graph, None)

    def fence(self, node: Node, region: list[Node]) -> None:
        """Fence ``region``, which takes the place of ``node`` (still in the graph, its edges
        in place); the region is chained in program order already. The firsts are linked in
        node order (``seq``): to link them in topological order, as before, each fence sorted
        the whole graph; the models built are the same byte for byte."""
        graph, inside = node.graph, set(region)
        head, tail = region[0], region[-1]
        outside = {p for n in region for p in n.in_nodes() if p not in inside}
        outside.update(node.in_nodes())
        # the edges already there left out by sets: each first of K Loops side by side is read
        # by a tail of every earlier one, and a list's check per edge would make them K^3
        for producer in sorted(outside - set(head.in_control_nodes()), key=lambda n: n.name):
            producer.out_control_anchor.link_new(head.in_control_anchor)
        fenced = self._graphs.get(graph)
        kept: list[Node] = []
        if fenced is None:
            before: set[Node] = set()
            _ancestors(head, before)
            candidates: Iterable[Node] = graph
        else:
            before = fenced.before
            moved = _ancestors(head, before)   # before grows by them
            # A first now was one before, or reads what just moved before the tail or the node
            # (the region's own readers are its own until the node's are handed to it). One
            # from before still is one unless it moved: each of its inputs was before the last
            # tail, or is that tail (its inputs are not read again: K Loops side by side each
            # have a tail before every later one, K^3 reads)
            kept = [n for n in fenced.firsts if n not in before and n is not node]
            candidates = _successors([*moved, node])
        before.update(inside)
        firsts = sorted({*kept, *(n for n in candidates if _first_after(n, before, node))},
                        key=lambda n: n.seq)
        linked = set(tail.out_control_nodes())
        for first in firsts:
            if first not in linked:
                tail.out_control_anchor.link_new(first.in_control_anchor)
        self._graphs[graph] = _Fenced(before, firsts)


def _first_after(n: Node, before: set[Node], node: Node) -> bool:
    """Whether ``n`` goes after the tail and reads nothing else that does: it is not before
    the tail, not the node the region replaces, not an idle source, and each of its inputs
    is one of those."""
    if n in before or n is node or idle_source(n):
        return False
    return all(p in before or p is node or idle_source(p) for p in n.in_nodes())


def _ancestors(node: Node, before: set[Node]) -> list[Node]:
    """``node``'s ancestors not yet in ``before`` (closed under inputs: the walk stops there),
    added to it; returns them."""
    found: list[Node] = []
    stack = list(node.in_nodes())
    while stack:
        n = stack.pop()
        if n not in before:
            before.add(n)
            found.append(n)
            stack.extend(n.in_nodes())
    return found


def _successors(nodes: Iterable[Node]) -> list[Node]:
    return [s for n in nodes for s in n.out_nodes()]
