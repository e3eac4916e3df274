"""InsertSyncNodesByLogicStream's event table and its first steps (GE's StreamAllocator).

GE keeps events as two maps, node -> send ids and node -> recv ids; here each event is one row
(id, the node its Send follows, the node its Recv precedes) in a list kept in insertion order,
which is the order GE's per-node id vectors grow in. Every step is a GraphPass of stage
"InsertSyncNodesByLogicStream" whose pass-table row carries the number of events left after it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ge_core.compiler.stream.logical_stream_passes.assign_label_body_streams_pass import (
    bodies_of, region_of)
from ge_core.compiler.stream.stream_active import activators
from ge_core.compiler.stream.stream_utils import (INVALID_STREAM, StreamAllocationError,
                                                  stream_of)
from ge_core.compiler.stream.topo_order import model_order, op_ids
from ge_core.graph import ComputeGraph, Node
from ge_core.graph.attr_names import LABEL_BODIES, LABEL_REGION, LOGIC_STREAM_ID
from ge_core.passes import GraphPass

EVENT, NOTIFY = "event", "notify"
ENTER_TYPES = frozenset({"Enter", "RefEnter"})


@dataclass(eq=False)
class SyncEvent:
    id: int
    src: Node  # its Send (EVENT_RECORD) follows this node on src's stream
    dst: Node  # its Recv (EVENT_WAIT) precedes this node on dst's stream

    def __repr__(self) -> str:
        return f"<{self.id}: {self.src.name} -> {self.dst.name}>"


@dataclass
class SyncState:
    root: ComputeGraph
    kind: str = EVENT
    events: list[SyncEvent] = field(default_factory=list)
    dependencies: list[tuple[Node, Node]] = field(default_factory=list)  # as first inserted
    next_id: int = 0

    def add(self, src: Node, dst: Node) -> None:
        self.events.append(SyncEvent(self.next_id, src, dst))
        self.dependencies.append((src, dst))
        self.next_id += 1

    def remove(self, event: SyncEvent) -> None:
        self.events.remove(event)

    def by_dst(self) -> dict[Node, list[SyncEvent]]:
        return _group(self.events, lambda e: e.dst)

    def by_src(self) -> dict[Node, list[SyncEvent]]:
        return _group(self.events, lambda e: e.src)


def _group(events: list[SyncEvent], key) -> dict[Node, list[SyncEvent]]:
    groups: dict[Node, list[SyncEvent]] = {}
    for event in events:
        groups.setdefault(key(event), []).append(event)
    return groups


def stream_nodes(root: ComputeGraph) -> dict[int, list[Node]]:
    """Each stream's nodes in the order they run (GE's stream_nodes)."""
    streams: dict[int, list[Node]] = {}
    for node in model_order(root):
        if stream_of(node) != INVALID_STREAM:
            streams.setdefault(stream_of(node), []).append(node)
    return dict(sorted(streams.items()))


class SyncPass(GraphPass):
    covers_subgraphs = True  # each step works on the whole model: the root and its bodies

    def __init__(self, state: SyncState) -> None:
        self.state = state

    def details(self) -> tuple[tuple[str, int], ...]:
        return (("events", len(self.state.events)),)


class SetLogicStreamIdAttr(GraphPass):
    """Record each node's logical stream before SplitStreams may move it."""
    name = "SetLogicStreamIdAttr"
    covers_subgraphs = True

    def run(self, graph: ComputeGraph) -> bool:
        for node in model_order(graph):
            if stream_of(node) != INVALID_STREAM:
                node.op_desc.set_attr(LOGIC_STREAM_ID, stream_of(node))
        return True


class InsertSyncEvents(SyncPass):
    """One event per data or control edge between two streams (none out of stream -1), and
    between a body and its parent's neighbours."""
    name = "InsertSyncEvents"

    def run(self, graph: ComputeGraph) -> bool:
        self._ids = op_ids(graph)
        self._activators = activators(graph)
        self._exits = region_exits(graph)
        for node in model_order(graph):
            for dst in node.out_data_nodes() + node.out_control_nodes():
                self._insert(node, dst)
        for body in graph.subgraphs:
            self._insert_for_subgraph(body)
        return bool(self.state.events)

    def _insert(self, src: Node, dst: Node) -> None:
        src_stream, dst_stream = stream_of(src), stream_of(dst)
        if src_stream in (INVALID_STREAM, dst_stream):
            return
        if src.type in ENTER_TYPES and dst.type != "StreamActive":
            return  # a loop's Enter is ordered by the StreamActive that starts the loop
        if dst_stream == INVALID_STREAM:
            raise StreamAllocationError(
                f"node {dst.name} ({dst.type}) has no stream but must wait for {src.name} "
                f"({src.type}) on stream {src_stream}")
        if (self._activated_after(src, dst_stream) or _enters_inlined_body(src, dst)
                or _leaves_inlined_region(src, dst, self._exits)):
            return
        self.state.add(src, dst)

    def _activated_after(self, src: Node, dst_stream: int) -> bool:
        """dst's stream only starts when an active node on src's stream, at or after src,
        activates it: the activation already orders them (GE: no event between the active
        node and the streams it activates)."""
        return any(a.graph is src.graph and stream_of(a) == stream_of(src)
                   and self._ids[src] <= self._ids[a]
                   for a in self._activators.get(dst_stream, ()))

    def _insert_for_subgraph(self, body: ComputeGraph) -> None:
        """A body's first nodes wait for the parent's inputs; whoever reads the parent's
        outputs waits for the body's end (its NetOutput)."""
        parent = body.parent_node
        for node in body.topological_sort():
            if stream_of(node) != INVALID_STREAM and not node.in_nodes():
                for src in parent.in_nodes():
                    self._insert(src, node)
        end = body.output_node
        if end is not None:
            for dst in parent.out_nodes():
                self._insert(end, dst)


def _enters_inlined_body(src: Node, dst: Node) -> bool:
    """``dst`` lies in an If/Loop/Case body that label lowering inlined and ``src`` does not (ours:
    GE keeps bodies as subgraphs). The label maker ordered every producer from outside a region
    before the region's head on the parent's stream, and the body starts only later there (its
    StreamActive or a jump), so the event adds no order. It would do harm: in a loop its wait
    comes round on every trip but its record only once, and in a branch not taken it would be
    recorded and never waited."""
    inside = dst.op_desc.get_attr(LABEL_BODIES)
    return bool(inside) and not set(inside) <= set(src.op_desc.get_attr(LABEL_BODIES) or ())


def regions_of(node: Node) -> set[str]:
    """The lowered regions ``node`` belongs to: the one it is a label/copy node of, and the
    one of each body it lies in."""
    own = node.op_desc.get_attr(LABEL_REGION)
    return {region_of(b) for b in bodies_of(node)} | ({own} if own is not None else set())


def region_exits(graph: ComputeGraph) -> dict[str, Node]:
    """Each lowered region's last node: its leaving LabelSet, which every path through the
    region reaches (GE's AddLabelSetLeave marks it ATTR_NAME_SUBGRAPH_END_NODE)."""
    return {n.op_desc.get_attr(LABEL_REGION): n for n in model_order(graph)
            if n.op_desc.get_attr(LABEL_REGION) is not None}


def _leaves_inlined_region(src: Node, dst: Node, exits: dict[str, Node]) -> bool:
    """``src`` lies in a lowered region, but is not its exit, and ``dst`` lies outside it.
    GE sends a body's events out only from the body's end node
    (StreamAllocator::InsertEventsForSubgraph, stream_allocator.cc): the leaving LabelSet, which
    every branch and the loop's last trip reach. Any other node of the region may be skipped
    (a branch not taken, a loop of no trips) or run once per trip, so its record would be
    missing or repeated for a wait that comes once; the label maker's chain already orders it
    before the exit, and the exit before ``dst``."""
    return any(region not in regions_of(dst) and exits.get(region) is not src
               for region in regions_of(src))
