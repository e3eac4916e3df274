"""MergeToStreamMergePass (GE's merge_to_stream_merge_pass.cc): a Merge becomes a StreamMerge,
and each of its inputs gets a StreamActive, ``<input>_StreamActive``, whose
``_active_label_list`` is the StreamMerge's name: AttachStreamLabelPass labels the StreamMerge's
stream so, and whichever branch ran starts it. No event can order a branch before the
StreamMerge (a wait for the branch that did not run would never end): the activation does."""
from __future__ import annotations

from ge_core.graph import ComputeGraph, GraphUtils, OpDesc
from ge_core.graph.attr_names import ATTR_NAME_ACTIVE_LABEL_LIST
from ge_core.passes.graph_pass import GraphPass

STREAM_MERGE = "StreamMerge"


class MergeToStreamMergePass(GraphPass):
    name = "MergeToStreamMergePass"

    def run(self, graph: ComputeGraph) -> bool:
        merges = [n for n in graph if n.type == "Merge"]
        for merge in merges:
            merge.op_desc.set_type(STREAM_MERGE)
            for anchor in merge.in_data_anchors:
                if anchor.peer is None:
                    continue
                source = anchor.peer.owner
                active = graph.add_node(OpDesc(graph.unique_name(f"{source.name}_StreamActive"),
                                               "StreamActive", 0, 0,
                                               {ATTR_NAME_ACTIVE_LABEL_LIST: [merge.name]}))
                GraphUtils.add_edge(source.out_control_anchor, active.in_control_anchor)
                GraphUtils.add_edge(active.out_control_anchor, merge.in_control_anchor)
        return bool(merges)
