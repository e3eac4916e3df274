"""InferShape alternating with constant folding to a fixed point (seed 001, "常量折叠与 InferShape
协同"): a fold can make a shape operand constant (Reshape's shape, ConstantOfShape's input), so
InferShape then finds static shapes, which make Shape and Size foldable, and so on.

A round is InferShape over the whole graph, then one GEPass of ConstantFoldingPass (which already
cascades along chains of foldable nodes) and CondRemovePass (an If or Case whose condition folded
becomes the branch it takes, as GE's InferShapeForPreprocess runs them together; it joins a round
that has such a node); the loop stops at the first round that changes nothing.
"""
from __future__ import annotations

from typing import Generator, NamedTuple

from ge_core.graph import ComputeGraph, Node
from ge_core.ops import infer_graph
from ge_core.passes.cond_remove_pass import CondRemovePass, constant_condition
from ge_core.passes.constant_folding_pass import ConstantFoldingPass
from ge_core.passes.ge_pass import GEPass
from ge_core.passes.graph_pass import GraphPass

MAX_ROUNDS = 8


class FoldRounds(NamedTuple):
    rounds: int        # rounds run; the last one folded nothing if fixed_point
    fixed_point: bool  # False: the bound cut the loop short

    @property
    def changed(self) -> bool:
        return self.rounds > 1 or not self.fixed_point


class InferShapeAndFoldPass(GraphPass):
    name = "InferShapeAndFoldPass"
    covers_subgraphs = True  # InferShape and GEPass both walk into subgraphs

    def __init__(self, max_rounds: int = MAX_ROUNDS) -> None:
        self.max_rounds = max_rounds
        self.last = FoldRounds(0, True)
        self.warnings = []
        self.round = 0                        # the round in progress, or the last one
        self.ge_pass: GEPass | None = None    # its ConstantFoldingPass walk

    def run(self, graph: ComputeGraph) -> bool:
        for _ in self.walk(graph):
            pass
        return self.last.changed

    def walk(self, graph: ComputeGraph) -> Generator[tuple[str, Node], None, bool]:
        """Node visits of every round's GEPass, so a debugger can step through the folding."""
        for rounds in range(1, self.max_rounds + 1):
            self.round = rounds
            infer_graph(graph)
            before = graph.edits.snapshot()
            ge_pass = self.ge_pass = GEPass(graph, [ConstantFoldingPass(), *_cond_remove(graph)])
            yield from ge_pass.walk()
            self.warnings.extend(ge_pass.report.warnings)
            if not graph.edits.since(before).any:
                self.last = FoldRounds(rounds, True)
                return self.last.changed
        self.last = FoldRounds(self.max_rounds, False)
        self.warnings.append(f"graph {graph.name}: still folding after {self.max_rounds} rounds "
                             f"of InferShape and ConstantFoldingPass")
        return True


def _cond_remove(graph: ComputeGraph) -> list[CondRemovePass]:
    """CondRemovePass joins a round only when it has work (an If or Case whose condition is a
    Const by then), so other models' node-visit steps stay as they were."""
    return [CondRemovePass()] if any(constant_condition(n) is not None
                                     for n in graph.all_nodes()) else []


def infer_and_fold(graph: ComputeGraph, max_rounds: int = MAX_ROUNDS) -> FoldRounds:
    """The alternation outside a PassManager (the pass object keeps GEPass's warnings)."""
    fold = InferShapeAndFoldPass(max_rounds)
    fold.run(graph)
    return fold.last
