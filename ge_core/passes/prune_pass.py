"""PrunePass (GE's prune_pass.cc), dead-code elimination: a node from which no data or control
path reaches NetOutput, or another node kept for its own sake (see must_keep: graph inputs, ops
without outputs, subgraph owners), is removed. A graph without a NetOutput is left alone."""
from __future__ import annotations

from ge_core.graph import ComputeGraph, GraphUtils
from ge_core.passes.graph_pass import GraphPass
from ge_core.passes.pass_utils import must_keep


class PrunePass(GraphPass):
    name = "PrunePass"

    def run(self, graph: ComputeGraph) -> bool:
        if graph.output_node is None:
            return False
        work = [n for n in graph if must_keep(n)]
        live = set(work)
        while work:
            for pred in work.pop().in_nodes():
                if pred not in live:
                    live.add(pred)
                    work.append(pred)
        dead = [n for n in graph if n not in live]  # insertion order: a deterministic trace
        for node in dead:
            GraphUtils.remove_node(node)
        return bool(dead)
