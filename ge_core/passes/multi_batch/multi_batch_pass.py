"""MultiBatchPass: every node of gear i gets ``_batch_label`` "Batch_<i>" (GE's
compiler/graph/passes/multi_batch/multi_batch_pass.cc, SetCaseLabel).

GE runs it twice: as OptimizeStage1_3::MultiBatchPass at the end of the original-graph stage,
and again as OptimizeStage2::ControlAttrOptimize::MultiBatchPass before the build, so nodes the
optimisers made inside a gear carry the label too. The label is how the memory assigner knows
two gears never run together and how the loader tells a gear's nodes apart.
"""
from __future__ import annotations

from ge_core.graph import ComputeGraph
from ge_core.graph.attr_names import ATTR_NAME_BATCH_LABEL, ATTR_NAME_BATCH_NUM
from ge_core.passes.graph_pass import GraphPass


def batch_label(index: int) -> str:
    return f"Batch_{index}"


class MultiBatchPass(GraphPass):
    name = "MultiBatchPass"
    covers_subgraphs = True   # it labels the gears from their Case, in the root graph

    def run(self, graph: ComputeGraph) -> bool:
        if graph.parent_graph is not None:
            return False
        changed = False
        for case in (n for n in graph if n.type == "Case"):
            if not case.op_desc.has_attr(ATTR_NAME_BATCH_NUM):
                continue
            for i, name in enumerate(case.op_desc.subgraph_names):
                for node in graph.subgraph(name).all_nodes():
                    if node.op_desc.get_attr(ATTR_NAME_BATCH_LABEL) != batch_label(i):
                        node.op_desc.set_attr(ATTR_NAME_BATCH_LABEL, batch_label(i))
                        changed = True
        return changed
