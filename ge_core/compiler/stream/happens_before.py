"""Happens-before on the device: what orders two tasks once they are on streams.

A stream runs its tasks in order; an event (Send -> Recv, or SendNotify -> RecvNotify with the
same id) orders a task before another stream's; a StreamActive orders itself before the first
task of each stream it starts. A dependency between two nodes is safe iff a path of these
edges leads from one to the other. The event minimiser asks this of the event table before the
Send/Recv nodes exist; the checker asks it of a finished graph. networkx is imported by the
first question: an ordinary compile asks none.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ge_core.compiler.stream.stream_active import activation_edges
from ge_core.compiler.stream.stream_utils import INVALID_STREAM, stream_of
from ge_core.compiler.stream.sync_event_nodes import SYNC_NODES
from ge_core.compiler.stream.topo_order import model_order
from ge_core.graph import ComputeGraph, Node

if TYPE_CHECKING:
    import networkx as nx


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


def happens_before(nodes: list[Node], sync: list[tuple[Node, Node]]) -> nx.DiGraph:
    import networkx as nx
    hb = nx.DiGraph()
    hb.add_nodes_from(nodes)
    hb.add_edges_from(stream_edges(nodes) + activation_edges(nodes) + sync)
    return hb


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
    import networkx as nx
    nodes = model_order(root)
    hb = happens_before(nodes, sync_edges(nodes))
    return [(src, dst) for src, dst in cross_stream_edges(nodes)
            if not nx.has_path(hb, src, dst)]
