"""Happens-before on the device: what orders two tasks once they are on streams.

A stream runs its tasks in order; an event (Send -> Recv, or SendNotify -> RecvNotify with the
same id) orders a task before another stream's; a StreamActive orders itself before the first
task of each stream it starts. A dependency between two nodes is safe iff a path of these
edges leads from one to the other. The event minimiser asks this of the event table before the
Send/Recv nodes exist; the checker asks it of a finished graph.

Both questions are answered with vector clocks, in time linear in the graph (a transitive
reduction or a path search per edge is quadratic: 40 s for a chain of 10k nodes). A stream is
sequential, so "u is ordered before x" is one comparison: x's clock holds, per stream, the last
position on it ordered before (or at) x, and u is ordered before x iff that is at least u's own
position. A node without a stream is its own sequence of one.
"""
from __future__ import annotations

from collections import deque
from typing import Hashable

from ge_core.compiler.stream.stream_active import activation_edges
from ge_core.compiler.stream.stream_utils import INVALID_STREAM, StreamAllocationError, stream_of
from ge_core.compiler.stream.sync_event_nodes import SYNC_NODES
from ge_core.compiler.stream.topo_order import model_order
from ge_core.graph import ComputeGraph, Node


def stream_edges(nodes: list[Node]) -> list[tuple[Node, Node]]:
    """Each task before the next one on its stream."""
    last: dict[int, Node] = {}
    edges = []
    for node in nodes:
        stream = stream_of(node)
        if stream != INVALID_STREAM:
            if stream in last:
                edges.append((last[stream], node))
            last[stream] = node
    return edges


class HappensBefore:
    """The order stream order, activations and ``sync`` impose on ``nodes`` (model order)."""

    def __init__(self, nodes: list[Node], sync: list[tuple[Node, Node]]) -> None:
        self.position = {node: i for i, node in enumerate(nodes)}
        self.preds: dict[Node, dict[Node, None]] = {node: {} for node in nodes}
        for src, dst in stream_edges(nodes) + activation_edges(nodes) + sync:
            self.preds[dst][src] = None
        self.clock: dict[Node, dict[Hashable, int]] = {}
        for node in self._topological(nodes):
            clock: dict[Hashable, int] = {}
            for pred in self.preds[node]:
                for key, pos in self.clock[pred].items():
                    if clock.get(key, -1) < pos:
                        clock[key] = pos
            clock[self._key(node)] = self.position[node]
            self.clock[node] = clock
        self._latest: dict[Node, dict[Hashable, list[tuple[int, Node]]]] = {}

    @staticmethod
    def _key(node: Node) -> Hashable:
        stream = stream_of(node)
        return node if stream == INVALID_STREAM else stream

    def _topological(self, nodes: list[Node]) -> list[Node]:
        """Kahn's order, model order among the ready (almost every edge already points
        forward in it)."""
        waiting = {node: len(preds) for node, preds in self.preds.items()}
        succs: dict[Node, list[Node]] = {node: [] for node in nodes}
        for node, preds in self.preds.items():
            for pred in preds:
                succs[pred].append(node)
        ready = deque(node for node in nodes if not waiting[node])
        order = []
        while ready:
            node = ready.popleft()
            order.append(node)
            for succ in succs[node]:
                waiting[succ] -= 1
                if not waiting[succ]:
                    ready.append(succ)
        if len(order) != len(nodes):
            stuck = next(node for node in nodes if waiting[node])
            raise StreamAllocationError(f"stream order, activations and events form a cycle "
                                        f"through {stuck.name}")
        return order

    def ordered(self, src: Node, dst: Node) -> bool:
        """Is ``src`` ordered before ``dst`` (or the same node)?"""
        return self.clock[dst].get(self._key(src), -1) >= self.position[src]

    def implied(self, src: Node, dst: Node) -> bool:
        """Does a path other than a direct edge order ``src`` before ``dst``? (Then the edge
        is not in the transitive reduction: the reduction of a DAG keeps exactly the edges no
        other path implies.) Some predecessor of ``dst`` other than ``src`` has ``src`` in its
        past: of the two predecessors latest on ``src``'s stream, the latest that is not
        ``src`` reaches as far as any (a Concat of 4000 branches asked its 4000 predecessors
        for each of them)."""
        latest = self._latest.get(dst)
        if latest is None:
            latest = self._latest[dst] = self._latest_two(dst)
        reach = max((pos for pos, pred in latest.get(self._key(src), ()) if pred is not src),
                    default=-1)
        return reach >= self.position[src]

    def _latest_two(self, dst: Node) -> dict[Hashable, list[tuple[int, Node]]]:
        """Per key of its predecessors' clocks, the two of them that reach furthest on it."""
        latest: dict[Hashable, list[tuple[int, Node]]] = {}
        for pred in self.preds[dst]:
            for key, pos in self.clock[pred].items():
                two = latest.setdefault(key, [])
                two.append((pos, pred))
                if len(two) > 2:
                    two.remove(min(two, key=lambda entry: entry[0]))
        return latest


def sync_edges(nodes: list[Node]) -> list[tuple[Node, Node]]:
    """Send -> Recv of each generated event (and notify), matched by id."""
    edges = []
    for k in SYNC_NODES.values():
        sends = {n.op_desc.get_attr(k.id_attr): n for n in nodes if n.type == k.send_type}
        edges += [(sends[n.op_desc.get_attr(k.id_attr)], n) for n in nodes
                  if n.type == k.recv_type and n.op_desc.get_attr(k.id_attr) in sends]
    return edges


def cross_stream_edges(nodes: list[Node]) -> list[tuple[Node, Node]]:
    """Every data or control edge whose producer runs on a stream and whose consumer runs on
    another one."""
    return [(node, dst) for node in nodes if stream_of(node) != INVALID_STREAM
            for dst in node.out_data_nodes() + node.out_control_nodes()
            if stream_of(dst) != stream_of(node)]


def unordered_dependencies(root: ComputeGraph) -> list[tuple[Node, Node]]:
    """The cross-stream edges of a finished graph that nothing orders: each is a race."""
    nodes = model_order(root)
    hb = HappensBefore(nodes, sync_edges(nodes))
    return [(src, dst) for src, dst in cross_stream_edges(nodes) if not hb.ordered(src, dst)]
