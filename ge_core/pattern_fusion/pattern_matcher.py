"""PatternMatcher: find a Pattern in a ComputeGraph by backtracking search (seed 001).

Matching starts at the pattern's output nodes: output 0 is tried on one candidate graph node (a
"match coordinate", in GE's words), further outputs on every node of their type. From each
output it walks backwards along data edges, input index by input index, binding pattern nodes to
graph nodes. Every place with more than one way on is a choice point: the two input orders of a
commutative node, the candidates for a further output. The search is written as nested
generators: a generator yields once per way its part of the pattern can bind, and undoes its
bindings when resumed past its last way, so a failed branch leaves nothing behind and the
caller's loop simply moves on to its next alternative.

A binding is one-to-one (two pattern nodes never share a graph node; a pattern node reached twice
must meet the same graph node) and a full match must be self-contained: the nodes it would remove
may not feed anything outside the match, except through the pattern outputs' first output.
"""
from __future__ import annotations

from typing import Callable, Iterator

import numpy as np

from ge_core.graph import Node, OutDataAnchor
from ge_core.passes.pass_utils import const_value
from ge_core.pattern_fusion.pattern import In, Pat, Pattern


class MatchResult:
    """One match: pattern names -> graph nodes (``match["conv"]``) and pattern inputs -> the
    anchors feeding them (``match.input("x")``, None when absent)."""

    def __init__(self, pattern: Pattern, nodes: dict[str, Node],
                 inputs: dict[str, OutDataAnchor | None], removed: list[Node]) -> None:
        self.pattern = pattern
        self.nodes = nodes
        self.inputs = inputs
        self.removed = removed  # the matched nodes a rewrite replaces, inputs first

    def __getitem__(self, name: str) -> Node:
        return self.nodes[name]

    def input(self, name: str) -> OutDataAnchor | None:
        return self.inputs[name]

    def const(self, name: str) -> np.ndarray | None:
        """The value of the Const feeding pattern input ``name``, else None."""
        anchor = self.inputs[name]
        return None if anchor is None else const_value(anchor.owner)

    @property
    def output_nodes(self) -> list[Node]:
        return [self.nodes[p.name] for p in self.pattern.outputs]

    def __repr__(self) -> str:
        pairs = ", ".join(f"{k}={v.name}" for k, v in self.nodes.items())
        return f"<Match {self.pattern.name}: {pairs}>"


Requirement = Callable[[MatchResult], bool]


class PatternMatcher:
    def __init__(self, pattern: Pattern, requirement: Requirement | None = None) -> None:
        self.pattern = pattern
        self.requirement = requirement  # a last test of a full match (MeetRequirements)
        self._nodes: dict[str, Node] = {}
        self._inputs: dict[str, OutDataAnchor | None] = {}
        self._owner: dict[Node, str] = {}  # graph node -> the pattern node bound to it

    def may_match(self, op_type: str) -> bool:
        """Whether a node of ``op_type`` may be output 0 of a match (else match_at refuses it)."""
        ops = self.pattern.outputs[0].ops
        return ops is None or op_type in ops

    def match_at(self, node: Node) -> MatchResult | None:
        """The first match whose output 0 is ``node``, or None."""
        if not self.may_match(node.type):
            return None   # most nodes: refused before any search state is made
        self._nodes, self._inputs, self._owner = {}, {}, {}
        rest = node.graph.nodes if len(self.pattern.outputs) > 1 else []
        for _ in self._bind_outputs(0, [node], rest):
            if (found := self._accept()) is not None:
                return found  # the abandoned search's bindings die with this call's state
        return None

    # -- the search: each generator yields once per way it binds, and undoes its bindings
    # -- when it runs out of ways; code after a loop over ways only runs on backtracking.
    def _bind_outputs(self, k: int, first: list[Node], rest: list[Node]) -> Iterator[None]:
        """Output 0 on ``first``, each further output on each node of ``rest`` in turn."""
        outputs = self.pattern.outputs
        if k == len(outputs):
            yield
            return
        for candidate in first if k == 0 else rest:
            for _ in self._bind_node(outputs[k], candidate):
                yield from self._bind_outputs(k + 1, first, rest)

    def _bind_node(self, p: Pat, node: Node) -> Iterator[None]:
        bound = self._nodes.get(p.name)
        if bound is not None:  # reached again along another path: must be the same node
            if bound is node:
                yield
            return
        if node in self._owner or not p.accepts(node):
            return
        self._nodes[p.name] = node
        self._owner[node] = p.name
        for order in p.input_orders():
            yield from self._bind_inputs(p, node, order, 0)
        del self._nodes[p.name], self._owner[node]

    def _bind_inputs(self, p: Pat, node: Node, order: tuple[int, ...], i: int) -> Iterator[None]:
        if i == len(order):
            yield
            return
        idx, item = order[i], p.inputs[i]
        src = node.in_data_anchors[idx].peer if idx < len(node.in_data_anchors) else None
        if isinstance(item, In):
            edge = self._bind_input(item, src)
        elif src is not None and src.idx == 0:
            edge = self._bind_node(item, src.owner)
        else:
            return
        for _ in edge:
            yield from self._bind_inputs(p, node, order, i + 1)

    def _bind_input(self, item: In, src: OutDataAnchor | None) -> Iterator[None]:
        if item.name in self._inputs:  # a pattern input used twice: the same tensor both times
            if self._inputs[item.name] is src:
                yield
            return
        if src is None and not item.optional:
            return
        if src is not None and item.const and src.owner.type != "Const":
            return
        self._inputs[item.name] = src
        yield
        del self._inputs[item.name]

    # -- a full binding ------------------------------------------------------------------------
    def _accept(self) -> MatchResult | None:
        removed = self._removed()
        if removed is None:
            return None
        found = MatchResult(self.pattern, dict(self._nodes), dict(self._inputs), removed)
        if self.requirement is not None and not self.requirement(found):
            return None
        return found

    def _removed(self) -> list[Node] | None:
        """The matched nodes a rewrite would remove, or None if the match is not self-contained.

        A shared pattern node with consumers outside the match stays, and so do the matched
        nodes feeding it; every other matched node goes, and may then feed nothing outside
        the match except through a pattern output's output 0 (which the rewrite re-points)."""
        pattern, nodes, owner = self.pattern, self._nodes, self._owner
        outputs = {p.name for p in pattern.outputs}
        kept: set[Node] = set()
        stack = [nodes[p.name] for p in pattern.nodes
                 if p.shared and p.name not in outputs
                 and any(c.owner not in owner for c in _consumers(nodes[p.name]))]
        while stack:
            n = stack.pop()
            if n not in kept and owner[n] not in outputs:
                kept.add(n)
                stack.extend(m for m in n.in_data_nodes() if m in owner)
        removed = [nodes[p.name] for p in pattern.nodes if nodes[p.name] not in kept]
        gone = set(removed)
        for n in removed:
            for a in n.out_data_anchors:
                if (a.idx != 0 or owner[n] not in outputs) and \
                        any(c.owner not in gone for c in a.peers):
                    return None
        return removed


def _consumers(node: Node) -> list:
    return [c for a in node.out_data_anchors for c in a.peers]
