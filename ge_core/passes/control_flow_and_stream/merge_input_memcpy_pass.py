"""MergeInputMemcpyPass (GE's merge_input_memcpy_pass.cc): each input of a Merge goes through a
MemcpyAsync named ``<merge>_input_<i>_MemcpyAsync``. Only one branch runs, and the memory
planner gives a Merge's inputs and output one buffer (mem_assist_info.py): the copy is what
writes the taken branch's result there."""
from __future__ import annotations

from ge_core.graph import ComputeGraph, GraphUtils, OpDesc
from ge_core.passes.graph_pass import GraphPass

MERGE = "Merge"


class MergeInputMemcpyPass(GraphPass):
    name = "MergeInputMemcpyPass"

    def run(self, graph: ComputeGraph) -> bool:
        changed = False
        for merge in [n for n in graph if n.type == MERGE]:
            for anchor in merge.in_data_anchors:
                src = anchor.peer
                if src is None:
                    continue
                copy = graph.add_node(OpDesc(graph.unique_name(
                    f"{merge.name}_input_{anchor.idx}_MemcpyAsync"), "MemcpyAsync", 1, 1))
                desc = src.owner.op_desc.output_descs[src.idx]
                copy.op_desc.update_input_desc(0, desc)
                copy.op_desc.update_output_desc(0, desc)
                GraphUtils.insert_node_between(src, anchor, copy)
                changed = True
        return changed
