"""PatternFusionPass: a GraphPass made of patterns and a replacement (GE's PatternFusionPass).

A subclass lists its ``patterns``, may refine ``meet_requirements`` (a test of a full match
that takes part in the search: a refused binding is backtracked like any other), and stages the
new nodes in ``replacement``. The pass visits candidate output nodes in topological order, tries
the patterns in their listed order on each, and commits the first match a replacement accepts;
the nodes a rewrite creates are visited next, so a chain of rewrites completes in one sweep and
the order stays topological.
"""
from __future__ import annotations

from collections import deque
from typing import ClassVar, Generator, Mapping

from ge_core.events import FusionMatched
from ge_core.graph import ComputeGraph, Node
from ge_core.passes.ge_pass import MAX_PASS_NODES_MULTIPLE
from ge_core.passes.graph_pass import GraphPass
from ge_core.pattern_fusion.pattern import Pattern
from ge_core.pattern_fusion.pattern_matcher import MatchResult, PatternMatcher
from ge_core.pattern_fusion.subgraph_rewriter import Ref, Replacement, rewrite


class PatternFusionPass(GraphPass):
    patterns: ClassVar[tuple[Pattern, ...]] = ()

    def __init__(self) -> None:
        self.fused: list[str] = []  # per rewrite of the last run, the node now bearing its name
        self.warnings = []

    def meet_requirements(self, match: MatchResult) -> bool:
        return True

    def replacement(self, match: MatchResult, rw: Replacement) -> Ref | Mapping[str, Ref] | None:
        """Stage the new nodes on ``rw``; return the tensor replacing the pattern's output (or a
        dict by output name for several outputs), or None to leave this match alone."""
        raise NotImplementedError

    def run(self, graph: ComputeGraph) -> bool:
        for _ in self.walk(graph):
            pass
        return bool(self.fused)

    def walk(self, graph: ComputeGraph) -> Generator[tuple[str, Node], None, bool]:
        """Yields (pass name, output node) before each rewrite, so a driver can step by fusion."""
        self.fused = []
        matchers = [PatternMatcher(p, self.meet_requirements) for p in self.patterns]
        # A node is tried only on the patterns whose output 0 may be of its type (the others
        # refuse it at once); a graph with no node of those types is not walked at all (an
        # engine's passes run on every one of its subgraphs, most of them with nothing to fuse).
        tries: dict[str, list[PatternMatcher]] = {}

        def tries_for(op_type: str) -> list[PatternMatcher]:
            found = tries.get(op_type)
            if found is None:
                found = tries[op_type] = [m for m in matchers if m.may_match(op_type)]
            return found

        if not any(tries_for(n.type) for n in graph):
            return False
        limit = MAX_PASS_NODES_MULTIPLE * max(len(graph), 1)
        queue = deque(graph.topological_sort())
        while queue:
            node = queue.popleft()
            if graph.find_node(node.name) is not node:
                continue  # a rewrite removed it
            for matcher in tries_for(node.type):
                new = yield from self._try(matcher, node)
                if new:
                    queue.extendleft(reversed(new))
                    break
            if len(self.fused) >= limit:
                self.warnings.append(f"graph {graph.name}: {self.name} stopped after "
                                     f"{len(self.fused)} rewrites (10 x the node count)")
                break
        return bool(self.fused)

    def _try(self, matcher: PatternMatcher,
             node: Node) -> Generator[tuple[str, Node], None, list[Node]]:
        match = matcher.match_at(node)
        if match is None:
            return []
        rw = Replacement(match)
        outputs = self.replacement(match, rw)
        if outputs is None:
            return []
        if not isinstance(outputs, Mapping):
            outputs = {match.pattern.outputs[0].name: outputs}
        graph = node.graph
        graph.bus.emit(FusionMatched, self.name, graph.name, match.pattern.name,
                       ",".join(n.name for n in match.removed))
        yield self.name, node
        new = rewrite(rw, outputs)
        self.fused.append(node.name)
        return new
