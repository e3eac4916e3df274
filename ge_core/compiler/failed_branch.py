"""A static build of an If or Case with a branch that always fails for the model's shapes (its
InferShape failed on shapes all known; ge_core/ops/shape_refiner.py): the branch becomes one
FailedBranch node per result, each of the parent's output shape, whose kernel reports the
InferShape error when the branch is taken. A dynamic run keeps the branch as it is and reports
the same error from its run-time InferShape.

    before (else_branch)                         after
    Data(x) -> Squeeze(axes 2) -> NetOutput      Data(x)   FailedBranch -> NetOutput
"""
from __future__ import annotations

from ge_core.graph import ComputeGraph, GraphUtils, OpDesc
from ge_core.graph.attr_names import ENGINE, INFER_ALWAYS_FAILS, INFER_DEFERRED
from ge_core.graph.compute_graph import DATA_TYPES, NETOUTPUT
from ge_core.passes.cond_remove_pass import remove_subgraph_tree

FAILED_BRANCH = "FailedBranch"
ENGINE_NAME = "DNN_VM_AICPU"   # a kernel of no data: the AI CPU runs it, as MapIndex


def compile_failed_branches(graph: ComputeGraph) -> None:
    for branch in [g for g in graph.subgraphs if g.attrs.get(INFER_ALWAYS_FAILS)]:
        parent = branch.parent_node
        message = f"branch {branch.name} taken: {branch.attrs[INFER_DEFERRED]}"
        for node in branch.topological_sort():
            if node.type in DATA_TYPES or node.type == NETOUTPUT:
                continue
            for sub_name in list(node.op_desc.subgraph_names):
                remove_subgraph_tree(graph, sub_name)
            GraphUtils.remove_node(node)
        out = branch.output_node
        for i, desc in enumerate(parent.op_desc.output_descs):
            op = OpDesc(branch.unique_name(f"{branch.name}_{FAILED_BRANCH}"), FAILED_BRANCH, 0,
                        1, {"message": message, ENGINE: ENGINE_NAME})
            op.update_output_desc(0, desc)
            node = branch.add_node(op)
            GraphUtils.add_edge(node.out_data_anchor(0), out.in_data_anchor(i))
            out.op_desc.update_input_desc(i, desc)
        branch.del_attr(INFER_ALWAYS_FAILS)
        branch.del_attr(INFER_DEFERRED)
