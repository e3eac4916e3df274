"""Anchors: the only way nodes connect (GE has no Edge objects).

An out-data anchor feeds many in-data anchors; an in-data anchor has at most one producer.
Control anchors order nodes without carrying data. Linking and unlinking announce themselves
on the owning graph's trace bus.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ge_core.graph.journal import journaled, touch

if TYPE_CHECKING:
    from ge_core.graph.node import Node


class GraphError(Exception):
    """A structural error in a graph; the message names the node at fault."""


class Anchor:
    __slots__ = ("owner", "idx", "_jep", "_jb")

    def __init__(self, owner: "Node", idx: int) -> None:
        self.owner = owner
        self.idx = idx
        # made with its node, or as the node is touched (journal.py); born as old as it is
        self._jep, self._jb = owner._jep, owner._jb

    # the journal's (graph/journal.py), for the anchors with a list of peers (an in-data
    # anchor has one peer: its own)
    def _saved(self) -> tuple[Any, ...]:
        return self.owner, self.idx, list(self.peers)

    def _restore(self, s: tuple[Any, ...]) -> None:
        self.owner, self.idx, self.peers = s


    @property
    def label(self) -> str:
        return f"{self.owner.name}:{self.idx}"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.label}>"


@journaled
class OutDataAnchor(Anchor):
    __slots__ = ("peers",)

    def __init__(self, owner: "Node", idx: int) -> None:
        # not through Anchor's: every node makes several
        self.owner, self.idx, self._jep, self._jb = owner, idx, owner._jep, owner._jb
        self.peers: list[InDataAnchor] = []

    def link_to(self, dst: "InDataAnchor") -> None:
        if dst.peer is not None:
            raise GraphError(f"input {dst.label} already has producer {dst.peer.label}")
        touch(self)
        touch(dst)
        self.peers.append(dst)
        dst.peer = self
        self.owner.graph.edge_edited(self, dst, linked=True)

    def unlink(self, dst: "InDataAnchor") -> None:
        if dst.peer is not self:
            raise GraphError(f"{self.label} is not linked to {dst.label}")
        touch(self)
        touch(dst)
        peers = self.peers
        # the last first: a graph torn down in reverse order unlinks each consumer of a
        # widely read output from the end of its list, which a scan from the front makes
        # quadratic
        if peers[-1] is dst:
            peers.pop()
        else:
            peers.remove(dst)
        dst.peer = None
        self.owner.graph.edge_edited(self, dst, linked=False)


@journaled
class InDataAnchor(Anchor):
    __slots__ = ("peer",)

    def __init__(self, owner: "Node", idx: int) -> None:
        # not through Anchor's: every node makes several
        self.owner, self.idx, self._jep, self._jb = owner, idx, owner._jep, owner._jb
        self.peer: OutDataAnchor | None = None

    def _saved(self) -> tuple[Any, ...]:
        return self.owner, self.idx, self.peer

    def _restore(self, s: tuple[Any, ...]) -> None:
        self.owner, self.idx, self.peer = s


@journaled
class OutControlAnchor(Anchor):
    __slots__ = ("peers",)

    def __init__(self, owner: "Node") -> None:
        super().__init__(owner, -1)
        self.peers: list[InControlAnchor] = []

    @property
    def label(self) -> str:
        return f"{self.owner.name}:ctrl"

    def link_to(self, dst: "InControlAnchor") -> None:
        if self not in dst.peers:   # a control edge is a fact, not a count
            self.link_new(dst)

    def link_new(self, dst: "InControlAnchor") -> None:
        """``link_to`` of an edge its caller knows is not there: a fence links a tail to
        thousands of nodes, each already read by as many tails (K^3 reads in the lists)."""
        touch(self)
        touch(dst)
        self.peers.append(dst)
        dst.peers.append(self)
        self.owner.graph.edge_edited(self, dst, linked=True)

    def unlink(self, dst: "InControlAnchor") -> None:
        if self not in dst.peers:
            raise GraphError(f"{self.label} is not linked to {dst.label}")
        touch(self)
        touch(dst)
        self.peers.remove(dst)
        dst.peers.remove(self)
        self.owner.graph.edge_edited(self, dst, linked=False)


@journaled
class InControlAnchor(Anchor):
    __slots__ = ("peers",)

    def __init__(self, owner: "Node") -> None:
        super().__init__(owner, -1)
        self.peers: list[OutControlAnchor] = []

    @property
    def label(self) -> str:
        return f"{self.owner.name}:ctrl"
