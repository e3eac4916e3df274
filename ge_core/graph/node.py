"""Node: an OpDesc placed in a graph, with the anchors that connect it."""
from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING, Iterator

from ge_core.graph.anchor import (Anchor, InControlAnchor, InDataAnchor, OutControlAnchor,
                                  OutDataAnchor)
from ge_core.graph.journal import journaled, stamp, touch
from ge_core.graph.op_desc import OpDesc

if TYPE_CHECKING:
    from ge_core.graph.compute_graph import ComputeGraph

_PEER = attrgetter("peer")


@journaled
class Node:
    __slots__ = ("op_desc", "graph", "seq", "in_data_anchors", "out_data_anchors",
                 "in_control_anchor", "out_control_anchor", "_jep", "_jb")

    def __init__(self, op_desc: OpDesc, graph: "ComputeGraph", seq: int) -> None:
        self._jep = self._jb = stamp(self)   # first: the anchors take it (graph/journal.py)
        self.op_desc = op_desc
        self.graph = graph
        self.seq = seq  # insertion order: the tie-break that makes every walk deterministic
        self.in_data_anchors = [InDataAnchor(self, i) for i in range(len(op_desc.input_descs))]
        self.out_data_anchors = [OutDataAnchor(self, i) for i in range(len(op_desc.output_descs))]
        self.in_control_anchor = InControlAnchor(self)
        self.out_control_anchor = OutControlAnchor(self)
        op_desc.adopted_by(self)

    # -- the journal's (graph/journal.py): every write below touches first ----------------------
    def _saved(self) -> tuple:
        return (self.op_desc, self.graph, self.seq, list(self.in_data_anchors),
                list(self.out_data_anchors), self.in_control_anchor, self.out_control_anchor)

    def _restore(self, s: tuple) -> None:
        (self.op_desc, self.graph, self.seq, self.in_data_anchors, self.out_data_anchors,
         self.in_control_anchor, self.out_control_anchor) = s

    def _unborn(self) -> None:
        self.break_cycles()

    @property
    def name(self) -> str:
        return self.op_desc.name

    @property
    def type(self) -> str:
        return self.op_desc.type

    def in_data_anchor(self, idx: int) -> InDataAnchor:
        return self.in_data_anchors[idx]

    def out_data_anchor(self, idx: int) -> OutDataAnchor:
        return self.out_data_anchors[idx]

    def add_input(self) -> InDataAnchor:
        """Grow the node by one input (GE's AddInputDesc + anchor), e.g. for NetOutput."""
        from ge_core.graph.ge_tensor import UNKNOWN_DESC
        touch(self)
        self.op_desc.append_input(UNKNOWN_DESC)
        anchor = InDataAnchor(self, len(self.in_data_anchors))
        self.in_data_anchors.append(anchor)
        return anchor

    def in_data_nodes(self) -> list["Node"]:
        return [a.peer.owner for a in self.in_data_anchors if a.peer is not None]

    def out_data_nodes(self) -> list["Node"]:
        return [p.owner for a in self.out_data_anchors for p in a.peers]

    def in_control_nodes(self) -> list["Node"]:
        return [p.owner for p in self.in_control_anchor.peers]

    def out_control_nodes(self) -> list["Node"]:
        return [p.owner for p in self.out_control_anchor.peers]

    # in one list, not two joined, and the control part only when there is one (most nodes
    # have no control edge): every walk asks these of every node
    def in_nodes(self) -> list["Node"]:
        nodes = [a.peer.owner for a in self.in_data_anchors if a.peer is not None]
        peers = self.in_control_anchor.peers
        if peers:
            nodes += [p.owner for p in peers]
        return nodes

    def has_in_nodes(self) -> bool:
        """Whether an edge comes in: ``in_nodes()`` without its list (a walk asks it of every
        node as it starts)."""
        return any(map(_PEER, self.in_data_anchors)) or bool(self.in_control_anchor.peers)

    def has_out_nodes(self) -> bool:
        """Whether an edge goes out: ``out_nodes()`` without its list (a Const read by
        thousands, asked as each of them goes)."""
        return any(a.peers for a in self.out_data_anchors) or bool(self.out_control_anchor.peers)

    def reads(self, producer: "Node") -> bool:
        """Whether an input of this node (data or control) comes from ``producer``."""
        for a in self.in_data_anchors:
            if a.peer is not None and a.peer.owner is producer:
                return True
        return any(peer.owner is producer for peer in self.in_control_anchor.peers)

    def out_nodes(self) -> list["Node"]:
        nodes = [p.owner for a in self.out_data_anchors for p in a.peers]
        peers = self.out_control_anchor.peers
        if peers:
            nodes += [p.owner for p in peers]
        return nodes

    def in_edges(self) -> Iterator[tuple[OutDataAnchor | OutControlAnchor,
                                         InDataAnchor | InControlAnchor]]:
        for a in self.in_data_anchors:
            if a.peer is not None:
                yield a.peer, a
        for p in self.in_control_anchor.peers:
            yield p, self.in_control_anchor

    def out_edges(self) -> Iterator[tuple[OutDataAnchor | OutControlAnchor,
                                          InDataAnchor | InControlAnchor]]:
        for a in self.out_data_anchors:
            for p in a.peers:
                yield a, p
        for p in self.out_control_anchor.peers:
            yield self.out_control_anchor, p

    def anchors(self) -> tuple[Anchor, ...]:
        """Every anchor of the node: its data inputs and outputs, then its control ends."""
        return (*self.in_data_anchors, *self.out_data_anchors, self.in_control_anchor,
                self.out_control_anchor)

    def discard(self) -> None:
        """Break the reference cycles through this node (its anchors and their peers, its op
        desc), silently, once nothing will use it again: reference counting then frees it at
        once, where the cyclic collector would be left a compile's worth of garbage to sweep."""
        for a in self.anchors():
            touch(a)
        if self.op_desc.node is self:
            touch(self.op_desc)
        self.break_cycles()

    def break_cycles(self) -> None:
        """Discard's, unsaved: for a removal that a journal undoes by ``mend`` (an isolated
        node's anchors have no peers, only their owner to lose)."""
        # one pass over the anchors, and no new list for a node already isolated (most are:
        # ComputeGraph.remove_node breaks the cycles of every node it removes)
        for a in self.in_data_anchors:
            a.peer = a.owner = None  # type: ignore[assignment]
        for a in (*self.out_data_anchors, self.in_control_anchor, self.out_control_anchor):
            if a.peers:
                a.peers = []
            a.owner = None  # type: ignore[assignment]
        if self.op_desc.node is self:
            self.op_desc.node = None

    def mend(self, owns_desc: bool) -> None:
        """Undo ``break_cycles`` of an isolated node: its anchors and (if it held it then) its
        desc are its own again."""
        # no tuple of the anchors made: a rewind past a fold of 15k nodes mends them all
        for a in self.in_data_anchors:
            a.owner = self
        for a in self.out_data_anchors:
            a.owner = self
        self.in_control_anchor.owner = self.out_control_anchor.owner = self
        if owns_desc:
            self.op_desc.node = self

    def __repr__(self) -> str:
        from ge_core.graph.dump import node_line
        return node_line(self)
