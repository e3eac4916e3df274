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
chain read 16k nodes each).

A first's edge waits until the first stops being one: it then comes from the last tail it was
first after. A first that stays one at the next fence is after that fence's tail, which is
after the last (its head reads, through its node's inputs, a first that stopped being one), so
one edge, from the last tail, orders it after both. K Loops side by side were K^2 edges, each
Loop's from every earlier tail, and as many links, moves and reads through the rest of the
build; each now has one. A graph's lowering ends (``close``), or the graph is edited
otherwise (StreamSwitchN's gears, fenced by their own rule: ``forget``), with the waiting
edges linked; the next fence then reads the graph whole again.
"""
from __future__ import annotations

from typing import Iterable

from ge_core.compiler.task.task_builder import task_count
from ge_core.graph import ComputeGraph, Node


def idle_source(node: Node) -> bool:
    """A constant or a graph input: it launches nothing, so where it sorts is no matter, and
    the build orders assume such nodes have no inputs: they stay out of the chain."""
    return not node.has_in_nodes() and task_count(node) == 0


class _Fenced:
    """What the fences of one graph established: every node before the last tail (closed under
    inputs), the last tail, and the firsts after it, whose edges from it wait (see above)."""
    __slots__ = ("before", "tail", "firsts", "stopped")

    def __init__(self, before: set[Node], tail: Node, firsts: dict[Node, None],
                 stopped: dict[Node, tuple]) -> None:
        self.before = before
        self.tail = tail
        self.firsts = firsts
        self.stopped = stopped   # see _first_after

    def link(self, firsts: Iterable[Node]) -> None:
        """The waiting edges of ``firsts``, in node order (``seq``), as a fence linked them."""
        for first in sorted(firsts, key=lambda n: n.seq):
            self.tail.out_control_anchor.link_to(first.in_control_anchor)


class RegionFences:
    def __init__(self) -> None:
        self._graphs: dict[ComputeGraph, _Fenced] = {}

    def forget(self, graph: ComputeGraph) -> None:
        """``graph`` is to be edited otherwise than by fences: the waiting edges are linked,
        and its next fence reads it whole."""
        fenced = self._graphs.pop(graph, None)
        if fenced is not None:
            fenced.link(fenced.firsts)

    close = forget   # the graph's lowering is done

    def fence(self, node: Node, region: list[Node]) -> None:
        """Fence ``region``, which takes the place of ``node`` (still in the graph, its edges
        in place); the region is chained in program order already."""
        graph, inside = node.graph, set(region)
        head, tail = region[0], region[-1]
        outside = {p for n in region for p in n.in_nodes() if p not in inside}
        outside.update(node.in_nodes())
        fenced = self._graphs.get(graph)
        if fenced is not None and node in fenced.firsts:
            outside.add(fenced.tail)   # the node's own waiting edge, taken by the head
        # the edges already there left out by a set: a check per edge scanned the head's list
        for producer in sorted(outside - set(head.in_control_nodes()), key=lambda n: n.name):
            producer.out_control_anchor.link_new(head.in_control_anchor)
        if fenced is None:
            before: set[Node] = set()
            _ancestors(head, before)
            candidates: Iterable[Node] = graph
            firsts: dict[Node, None] = {}
            stopped: dict[Node, tuple] = {}
        else:
            before, firsts, stopped = fenced.before, fenced.firsts, fenced.stopped
            moved = _ancestors(head, before)   # before grows by them
            # A first that moved before the head, or is the node, is one no longer: its edge
            # from the last tail is linked (the node's went to the head). A new first reads
            # what just moved before the tail, or the node (the region's own readers are its
            # own until the node's are handed to it). One from before still is one: each of
            # its inputs was before the last tail (its edge from that tail waits).
            fenced.link([n for n in moved if n in firsts])
            for n in (*moved, node):
                firsts.pop(n, None)
            candidates = _successors([*moved, node])
        before.update(inside)
        firsts.update(dict.fromkeys(n for n in candidates
                                    if _first_after(n, before, node, stopped)))
        self._graphs[graph] = _Fenced(before, tail, firsts, stopped)


def _first_after(n: Node, before: set[Node], node: Node, stopped: dict[Node, tuple]) -> bool:
    """Whether ``n`` goes after the tail and reads nothing else that does: it is not before
    the tail, not the node the region replaces, not an idle source, and each of its inputs
    is one of those. Its inputs are its data anchors' peers, then its control peers; the one
    that last said no is kept (``stopped``), and asked first: between two fences an input
    only changes from a lowered node to its region's output, or is a tail's control edge,
    and an input once fine stays so (a Sum of K Loops side by side, asked at each of their
    fences, read K inputs each time)."""
    if n in before or n is node or idle_source(n):
        return False
    data, peers = n.in_data_anchors, n.in_control_anchor.peers
    at, owner = stopped.pop(n, (0, None))
    if owner is not None and _input(data, peers, at) is not owner:   # a control peer went
        at = 0
    while at < len(data) + len(peers):
        p = _input(data, peers, at)
        if p is not None and not (p in before or p is node or idle_source(p)):
            stopped[n] = (at, p)
            return False
        at += 1
    return True


def _input(data: list, peers: list, at: int) -> Node | None:
    if at < len(data):
        peer = data[at].peer
        return peer.owner if peer is not None else None
    return peers[at - len(data)].owner if at - len(data) < len(peers) else None


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
