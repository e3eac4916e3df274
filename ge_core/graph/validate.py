"""Structural checks (like torch.fx's lint): each failure names the node at fault."""
from __future__ import annotations

from ge_core.graph.anchor import GraphError
from ge_core.graph.compute_graph import ComputeGraph
from ge_core.graph.types import DataType


class GraphValidationError(GraphError):
    pass


def validate(graph: ComputeGraph) -> None:
    """Raise GraphValidationError for a cycle, a broken anchor, a missing producer, or a
    dtype/rank mismatch on an edge (static shapes of one element count may differ in rank);
    recurse into subgraphs."""
    listed = _Listed()
    for node in graph:
        for anchor in node.in_data_anchors:
            peer = anchor.peer
            desc = node.op_desc.input_descs[anchor.idx]
            if peer is None:
                if not desc.absent:
                    raise GraphValidationError(
                        f"node {node.name} ({node.type}): input {anchor.idx} has no producer")
                continue
            if peer.owner.graph is not graph or not listed(peer, anchor):
                raise GraphValidationError(
                    f"node {node.name} ({node.type}): input {anchor.idx} is dangling "
                    f"(its producer {peer.label} does not list it)")
            _check_edge(peer.owner.op_desc.output_descs[peer.idx], desc, peer, node, anchor.idx)
        for anchor in node.out_data_anchors:
            for p in anchor.peers:
                if p.peer is not anchor:
                    raise GraphValidationError(
                        f"node {node.name} ({node.type}): output {anchor.idx} lists "
                        f"{p.label} which is fed by {p.peer.label if p.peer else 'nothing'}")
        for p in node.in_control_anchor.peers:
            if not listed(p, node.in_control_anchor):
                raise GraphValidationError(
                    f"node {node.name} ({node.type}): control input from {p.owner.name} dangling")
    graph.topological_sort()  # raises naming a node on a cycle
    if graph.parent_graph is None:
        for sub in graph.subgraphs:
            validate(sub)


class _Listed:
    """Whether an output (data or control) lists a consumer, answered from a set for an output
    with many (a constant CSE merged feeds thousands; a fence's tail precedes every later
    region): a scan of its list per consumer would make the check quadratic in the graph's
    size."""
    _SCAN = 16

    def __init__(self) -> None:
        self.sets: dict = {}

    def __call__(self, out, anchor) -> bool:
        peers = out.peers
        if len(peers) <= self._SCAN:
            return anchor in peers
        members = self.sets.get(out)
        if members is None:
            members = self.sets[out] = set(peers)
        return anchor in members


def _check_edge(src, dst, peer, node, idx: int) -> None:
    """``peer``: the producing anchor, whose label is made only for a fault."""
    if src.shape is dst.shape and src.dtype == dst.dtype:
        return   # most edges: InferShape gave the consumer the producer's very shape
    if DataType.DT_UNDEFINED not in (src.dtype, dst.dtype) and src.dtype != dst.dtype:
        raise GraphValidationError(
            f"node {node.name} ({node.type}): input {idx} expects {dst.dtype.short} but "
            f"{peer.label} produces {src.dtype.short}")
    if src.shape.rank is not None and dst.shape.rank is not None \
            and src.shape.rank != dst.shape.rank \
            and (src.shape.is_unknown or src.shape.num_elements() != dst.shape.num_elements()):
        # the same static element count is a flat read: a removed Reshape (ReshapeRemovePass)
        raise GraphValidationError(
            f"node {node.name} ({node.type}): input {idx} expects rank {dst.shape.rank} but "
            f"{peer.label} produces {src.shape}")
