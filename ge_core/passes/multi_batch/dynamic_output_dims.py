"""GetDynamicOutputShape (GE's graph/preprocess/multi_batch_copy_graph.cc, run by
PrepareDynShape after InferShape): NetOutput records each output's shape in every gear, as
"gear,output,dim,dim..." (gear -1: an output the Case does not make, the same in every gear), so
the loader hands back the running gear's shape instead of the largest."""
from __future__ import annotations

from ge_core.graph import ComputeGraph
from ge_core.graph.attr_names import ATTR_NAME_BATCH_NUM, ATTR_NAME_DYNAMIC_OUTPUT_DIMS
from ge_core.graph.multi_batch_gears import STATIC_OUTPUT


def set_dynamic_output_dims(graph: ComputeGraph) -> None:
    out = graph.output_node
    case = next((n for n in graph if n.type == "Case"
                 and n.op_desc.has_attr(ATTR_NAME_BATCH_NUM)), None)
    if out is None or case is None:
        return
    entries = []
    for index, anchor in enumerate(out.in_data_anchors):
        src = anchor.peer
        if src is not None and src.owner is case:
            for gear, name in enumerate(case.op_desc.subgraph_names):
                desc = graph.subgraph(name).output_node.op_desc.input_descs[src.idx]
                entries.append(_entry(gear, index, desc.shape.dims))
        else:
            entries.append(_entry(STATIC_OUTPUT, index, out.op_desc.input_descs[index].shape.dims))
    if out.op_desc.get_attr(ATTR_NAME_DYNAMIC_OUTPUT_DIMS) != entries:   # set again only if new
        out.op_desc.set_attr(ATTR_NAME_DYNAMIC_OUTPUT_DIMS, entries)


def _entry(gear: int, index: int, dims: tuple[int, ...]) -> str:
    return ",".join(str(v) for v in (gear, index, *dims))
