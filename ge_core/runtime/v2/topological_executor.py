"""GE's TopologicalExecutor: nodes run as their dependency counts reach zero.

Each node counts the nodes it waits for (producers of the values it reads, the nodes it must
follow); a ready queue starts with those waiting for none, and finishing a node decrements its
successors. The order differs from the sequential one - inputs copied in and blocks allocated
as early as possible - and the results must not (tested): whatever runs first, a kernel reads
values already written and a block is reused only where stream order makes it safe.
"""
from __future__ import annotations

from collections import deque

from ge_core.runtime.v2.execute_graph import ExecuteGraphError
from ge_core.runtime.v2.sequential_executor import RunNode, node_failed


class TopologicalExecutor:
    name = "topological"

    def __init__(self, nodes: list[RunNode], dependencies: list[list[int]]) -> None:
        self.nodes = nodes
        self.successors: list[list[int]] = [[] for _ in nodes]
        self.waiting_for = [len(deps) for deps in dependencies]
        for i, deps in enumerate(dependencies):
            for d in deps:
                self.successors[d].append(i)
        self.sources = [i for i, n in enumerate(self.waiting_for) if n == 0]
        self.order: list[int] = []   # the last execution's order, for a debugger to show

    def execute(self) -> None:
        pending = list(self.waiting_for)
        ready = deque(self.sources)
        nodes, successors = self.nodes, self.successors
        order: list[int] = []
        ctx = None
        try:
            while ready:
                i = ready.popleft()
                func, ctx = nodes[i]
                func(ctx)
                order.append(i)
                for j in successors[i]:
                    pending[j] -= 1
                    if not pending[j]:
                        ready.append(j)
        except Exception as exc:
            raise node_failed(ctx, exc) from exc
        self.order = order
        if len(order) != len(nodes):
            stuck = next(nodes[i][1].name for i, n in enumerate(pending) if n)
            raise ExecuteGraphError(f"topological executor: {len(nodes) - len(order)} nodes "
                                    f"never became ready (a dependency cycle through {stuck})")
