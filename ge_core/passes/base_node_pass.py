"""BaseNodePass: a pass that decides node by node (GE's passes/base_pass.h).

GEPass calls ``run(node)`` on every node; the pass tells GEPass about the consequences of its
edits through the add_* calls, which is what lets one round of GEPass see its own rewrites.
"""
from __future__ import annotations

from typing import ClassVar

from ge_core.graph import GraphUtils, Node


# "No request": shared by every pass. A tuple, because deepcopy (a debugger's checkpoint)
# returns an empty tuple itself, where it would turn a list sentinel into one shared list that
# ``_request`` then appends to.
_NONE: tuple[Node, ...] = ()


class BaseNodePass:
    name: ClassVar[str] = ""
    # The op types ``run`` may do anything on, None for any: GEPass calls it on no other node
    # (a walk meets every node with every pass: 85k calls a pass group at 20k nodes).
    types: ClassVar[frozenset[str] | None] = None

    def __init__(self) -> None:
        self.init()
        # GEPass visits an owner of subgraphs before and after walking them; True on the second
        # visit (GE's kOptimizeAfterSubGraph option)
        self.after_subgraph = False

    def init(self) -> None:
        """Reset the per-node requests; GEPass calls this before each ``run``. Most runs ask
        for nothing: the lists are made by the first request, and ``requested`` tells GEPass
        whether to look at them at all."""
        self.requested = False
        self.re_pass: list[Node] | tuple[Node, ...] = _NONE
        self.immediate_re_pass: list[Node] | tuple[Node, ...] = _NONE
        self.deleted: list[Node] | tuple[Node, ...] = _NONE
        self.suspended: list[Node] | tuple[Node, ...] = _NONE
        self.resumed: list[Node] | tuple[Node, ...] = _NONE

    def run(self, node: Node) -> None:
        raise NotImplementedError

    # -- requests to GEPass ------------------------------------------------------------------
    def add_re_pass_node(self, node: Node) -> None:
        """Visit ``node`` again once the queue drains."""
        self.re_pass = self._request(self.re_pass, node)

    def add_immediate_re_pass_node(self, node: Node) -> None:
        """Visit ``node`` again next, so later passes see the rewrite in this same round."""
        self.immediate_re_pass = self._request(self.immediate_re_pass, node)

    def add_node_deleted(self, node: Node) -> None:
        self.deleted = self._request(self.deleted, node)

    def add_node_suspend(self, node: Node) -> None:
        """Hold ``node``'s successors back until it is resumed."""
        self.suspended = self._request(self.suspended, node)

    def add_node_resume(self, node: Node) -> None:
        self.resumed = self._request(self.resumed, node)

    def _request(self, requests: list[Node] | tuple[Node, ...], node: Node) -> list[Node]:
        self.requested = True
        if requests is _NONE:
            return [node]
        requests.append(node)
        return requests

    def isolate_and_delete_node(self, node: Node, io_map: dict[int, int] | None = None) -> None:
        """GE's IsolateAndDeleteNode: the neighbours may now fold further, so re-pass them."""
        for n in node.in_nodes() + node.out_nodes():
            self.add_re_pass_node(n)
        GraphUtils.isolate_and_remove(node, io_map)
        self.add_node_deleted(node)

    def __repr__(self) -> str:
        return f"<{self.name or type(self).__name__}>"
