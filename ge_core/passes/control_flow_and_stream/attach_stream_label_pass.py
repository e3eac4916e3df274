"""AttachStreamLabelPass (GE's attach_stream_label_pass.cc): the labels that give each branch
and each StreamMerge's successors a stream of their own.

- A StreamSwitch's branch is labelled ``<its data input>_t`` or ``_f`` (its data input is the
  predicate's Cast), and the switch's ``_active_label_list`` names that label;
- a StreamMerge is labelled with its own name.

From each, the label spreads to every node reachable along data and control edges, stopping
before a StreamSwitch, StreamMerge, Merge or NetOutput. (GE's Enter/loop cases and CMO labels
are not modelled.)
"""
from __future__ import annotations

from ge_core.graph import ComputeGraph, Node
from ge_core.graph.attr_names import (ATTR_NAME_ACTIVE_LABEL_LIST, ATTR_NAME_STREAM_LABEL,
                                      ATTR_NAME_SWITCH_TRUE_BRANCH_FLAG)
from ge_core.passes.graph_pass import GraphPass

END_TYPES = frozenset({"StreamSwitch", "StreamMerge", "Merge", "NetOutput"})


class AttachStreamLabelPass(GraphPass):
    name = "AttachStreamLabelPass"

    def run(self, graph: ComputeGraph) -> bool:
        starts = [n for n in graph if n.type == "StreamMerge"]
        starts += [n for n in graph if n.type == "StreamSwitch"
                   and n.op_desc.has_attr(ATTR_NAME_SWITCH_TRUE_BRANCH_FLAG)]
        for node in starts:
            self._spread(node, self._attach_flag(node))
        return bool(starts)

    @staticmethod
    def _attach_flag(node: Node) -> str:
        if node.type == "StreamMerge":
            node.op_desc.set_attr(ATTR_NAME_STREAM_LABEL, node.name)
            return node.name
        true_branch = node.op_desc.get_attr(ATTR_NAME_SWITCH_TRUE_BRANCH_FLAG)
        label = node.in_data_anchors[0].peer.owner.name + ("_t" if true_branch else "_f")
        node.op_desc.set_attr(ATTR_NAME_ACTIVE_LABEL_LIST, [label])
        return label

    @staticmethod
    def _spread(start: Node, label: str) -> None:
        stack, seen = [start], {start}
        while stack:
            for out in stack.pop().out_nodes():
                if out.type in END_TYPES or out in seen:
                    continue
                seen.add(out)
                out.op_desc.set_attr(ATTR_NAME_STREAM_LABEL, label)
                stack.append(out)
