"""GraphUtils: the edits passes make, all expressed on anchors, and what GE asks of a whole graph
(as GE's GraphUtils)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ge_core.graph.anchor import (GraphError, InControlAnchor, InDataAnchor, OutControlAnchor,
                                  OutDataAnchor)
from ge_core.graph.attr_names import ATTR_NAME_PARENT_NODE_INDEX, INFER_ALWAYS_FAILS
from ge_core.graph.node import Node

if TYPE_CHECKING:
    from ge_core.graph.compute_graph import ComputeGraph

OutAnchor = OutDataAnchor | OutControlAnchor
InAnchor = InDataAnchor | InControlAnchor


class GraphUtils:
    @staticmethod
    def is_unknown_shape_graph(graph: ComputeGraph) -> bool:
        """Some op's output dims are known only at run time (GE's IsUnknownShapeGraph). A branch
        that always fails for these shapes does not count: a static build makes it a
        FailedBranch (ge_core/compiler/failed_branch.py)."""
        return any(d.shape.is_unknown for n in graph.all_nodes()
                   if not n.graph.attrs.get(INFER_ALWAYS_FAILS) for d in n.op_desc.output_descs)

    @staticmethod
    def get_in_node_cross_subgraph(anchor: InDataAnchor) -> Node | None:
        """The node whose value ``anchor`` reads, seen through subgraph Data nodes to the parent's
        input they stand for (GE's NodeUtils::GetInNodeCrossSubgraph): a weight the gear passes
        moved to the root is still that Const inside each gear."""
        peer = anchor.peer
        while peer is not None and peer.owner.type == "Data":
            parent_index = peer.owner.op_desc.get_attr(ATTR_NAME_PARENT_NODE_INDEX)
            parent = peer.owner.graph.parent_node
            if parent_index is None or parent is None:
                return peer.owner
            peer = parent.in_data_anchors[parent_index].peer
        return None if peer is None else peer.owner

    @staticmethod
    def add_edge(src: OutAnchor, dst: InAnchor) -> None:
        if isinstance(src, OutDataAnchor) != isinstance(dst, InDataAnchor):
            raise GraphError(f"cannot link {src.label} to {dst.label}: data and control mixed")
        src.link_to(dst)  # type: ignore[arg-type]

    @staticmethod
    def remove_edge(src: OutAnchor, dst: InAnchor) -> None:
        src.unlink(dst)  # type: ignore[arg-type]

    @staticmethod
    def replace_edge_src(src: OutAnchor, dst: InAnchor, new_src: OutAnchor) -> None:
        GraphUtils.remove_edge(src, dst)
        GraphUtils.add_edge(new_src, dst)

    @staticmethod
    def replace_edge_dst(src: OutAnchor, dst: InAnchor, new_dst: InAnchor) -> None:
        GraphUtils.remove_edge(src, dst)
        GraphUtils.add_edge(src, new_dst)

    @staticmethod
    def insert_node_between(src: OutDataAnchor, dst: InDataAnchor, node: Node,
                            in_idx: int = 0, out_idx: int = 0) -> None:
        """src -> dst becomes src -> node:in_idx, node:out_idx -> dst."""
        GraphUtils.remove_edge(src, dst)
        GraphUtils.add_edge(src, node.in_data_anchor(in_idx))
        GraphUtils.add_edge(node.out_data_anchor(out_idx), dst)

    @staticmethod
    def isolate_node(node: Node, io_map: dict[int, int] | None = None) -> None:
        """Cut ``node`` out, wiring the producer of input i to the consumers of output io_map[i]
        (default: input 0 -> output 0) and every control predecessor to every successor, so the
        order the node imposed survives its removal."""
        io_map = {0: 0} if io_map is None else io_map
        src_of: dict[int, int] = {}   # output -> the first input mapped to it
        for i, o in io_map.items():
            src_of.setdefault(o, i)
        ctrl_srcs = list(node.in_control_anchor.peers)
        data_srcs = [a.peer for a in node.in_data_anchors]
        successors: list[Node] = []
        for out_anchor in node.out_data_anchors:
            if not out_anchor.peers:
                continue
            consumers = list(out_anchor.peers)
            src_idx = src_of.get(out_anchor.idx)
            new_src = (data_srcs[src_idx] if src_idx is not None and src_idx < len(data_srcs)
                       else None)
            for dst in consumers:
                out_anchor.unlink(dst)
                if new_src is not None:
                    new_src.link_to(dst)
                successors.append(dst.owner)
        successors += [p.owner for p in node.out_control_anchor.peers]
        for dst in list(node.out_control_anchor.peers):
            node.out_control_anchor.unlink(dst)
        for anchor in node.in_data_anchors:
            if anchor.peer is not None:
                anchor.peer.unlink(anchor)
        for src in ctrl_srcs:
            src.unlink(node.in_control_anchor)
        # A control predecessor must still run before whatever came after the node.
        for src in ctrl_srcs:
            for succ in successors:
                src.link_to(succ.in_control_anchor)

    @staticmethod
    def remove_node(node: Node) -> None:
        """Unlink every edge of ``node`` and drop it from its graph: in edges (data, then
        control), then out edges, each in its anchor's order (in_edges and out_edges' order,
        walked without their generators: a fold or a prune removes thousands)."""
        for a in node.in_data_anchors:
            if a.peer is not None:
                a.peer.unlink(a)
        ctrl_in = node.in_control_anchor
        for p in list(ctrl_in.peers):
            p.unlink(ctrl_in)
        for a in node.out_data_anchors:
            for p in list(a.peers):
                a.unlink(p)
        ctrl_out = node.out_control_anchor
        for p in list(ctrl_out.peers):
            ctrl_out.unlink(p)
        node.graph.remove_node(node)

    @staticmethod
    def isolate_and_remove(node: Node, io_map: dict[int, int] | None = None) -> None:
        GraphUtils.isolate_node(node, io_map)
        node.graph.remove_node(node)
