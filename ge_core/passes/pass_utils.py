"""Small helpers every rewrite needs: reading and making constants, moving consumers, deleting
what a rewrite left unused."""
from __future__ import annotations

import hashlib

import numpy as np

from ge_core.executor.host_executor import LATEST_OPSET
from ge_core.graph import (ComputeGraph, GeShape, GeTensor, GeTensorDesc, GraphUtils, Node, OpDesc,
                           OutDataAnchor)
from ge_core.graph.attr_names import ATTR_NAME_WEIGHTS, OPSET
from ge_core.graph.types import DataType
from ge_core.passes.base_node_pass import BaseNodePass

# Ops whose output is a draw, not a function of the inputs: never folded nor merged. Dropout is
# one in training; in inference IdentityPass deletes it.
RANDOM_OPS = frozenset({"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike",
                        "Multinomial", "Bernoulli", "Dropout"})
# A graph's inputs and outputs; PlaceHolder and End stand for the edges a partition cut.
GRAPH_IO = frozenset({"Data", "RefData", "NetOutput", "PlaceHolder", "End"})


def const_value(node: Node | None) -> np.ndarray | None:
    """The value of a Const node, else None."""
    if node is None:
        return None
    op = node.op_desc   # read once: every folding pass asks this of every input of every node
    if op.type != "Const":
        return None
    value = op.get_attr(ATTR_NAME_WEIGHTS)
    return value.data if isinstance(value, GeTensor) else None


def input_const(node: Node, idx: int) -> np.ndarray | None:
    """The constant feeding input ``idx`` of ``node``, if that producer is a Const."""
    if idx >= len(node.in_data_anchors):
        return None
    peer = node.in_data_anchors[idx].peer
    return const_value(peer.owner) if peer is not None else None


def make_const(graph: ComputeGraph, name: str, data: np.ndarray) -> Node:
    """Add a Const node holding ``data`` under a name not yet used in ``graph``."""
    data = np.asarray(data)
    desc = GeTensorDesc(GeShape(tuple(data.shape)), DataType.from_numpy(data.dtype))
    op = OpDesc(graph.unique_name(name), "Const", 0, 1,
                {ATTR_NAME_WEIGHTS: GeTensor(data, desc)})
    op.update_output_desc(0, desc)
    return graph.add_node(op)


def tensor_key(data: np.ndarray) -> tuple:
    """Equal keys <=> same dtype, shape and bytes (a digest, so big weights compare cheaply)."""
    data = np.asarray(data, order="C")
    payload = repr(data.tolist()).encode() if data.dtype.hasobject else data.data  # strings
    return data.dtype.str, data.shape, hashlib.sha256(payload).digest()


def graph_opset(graph: ComputeGraph) -> int:
    return int(graph.root.attrs.get(OPSET, LATEST_OPSET))


def static_dims(desc: GeTensorDesc) -> tuple[int, ...] | None:
    """The dims when every one is known at compile time, else None."""
    return None if desc.shape.is_unknown else desc.shape.dims


def must_keep(node: Node) -> bool:
    """Graph inputs and outputs, ops with no outputs (they exist for a side effect), and owners of
    subgraphs (the IR cannot drop a subgraph) stay even when nothing reads them."""
    op = node.op_desc
    return op.type in GRAPH_IO or not node.out_data_anchors or bool(op.subgraph_names)


def producer(node: Node, op_type: str, idx: int = 0) -> Node | None:
    """The node feeding input ``idx`` if it is an ``op_type`` with no control inputs (reading
    through a node with control inputs would lose the order they impose)."""
    peer = node.in_data_anchors[idx].peer if idx < len(node.in_data_anchors) else None
    if peer is None or peer.owner.type != op_type or peer.owner.in_control_anchor.peers:
        return None
    return peer.owner


# -- edits ------------------------------------------------------------------------------------
def relink_input(node: Node, idx: int, src: OutDataAnchor) -> None:
    """Input ``idx`` of ``node`` reads ``src`` instead, taking its desc (as GE's
    UpdatePeerInputDesc)."""
    dst = node.in_data_anchors[idx]
    if dst.peer is not src:
        GraphUtils.replace_edge_src(dst.peer, dst, src)
    node.op_desc.update_input_desc(idx, src.owner.op_desc.output_descs[src.idx])


def move_consumers(src: OutDataAnchor, dst: OutDataAnchor) -> list[Node]:
    """Every consumer of ``src`` reads ``dst`` instead; returns the consumers."""
    consumers = list(src.peers)
    for peer in consumers:
        relink_input(peer.owner, peer.idx, dst)
    return [p.owner for p in consumers]


def merge_into(dup: Node, keeper: Node) -> None:
    """``dup`` computes what ``keeper`` does: its consumers and control successors move to
    ``keeper`` and it is removed (CSE and ConstantFuseSamePass)."""
    for a, b in zip(dup.out_data_anchors, keeper.out_data_anchors):
        move_consumers(a, b)
    for p in list(dup.out_control_anchor.peers):
        GraphUtils.replace_edge_src(dup.out_control_anchor, p, keeper.out_control_anchor)
    GraphUtils.remove_node(dup)


def delete_if_dead(pass_: BaseNodePass, node: Node) -> None:
    """Delete ``node`` if a rewrite left it unread, then its producers likewise (GE's folding
    deletes the inputs it leaves without consumers)."""
    work = [node]
    while work:
        n = work.pop()
        if n.graph.find_node(n.name) is not n or n.has_out_nodes() or must_keep(n):
            continue
        work += n.in_data_nodes()
        pass_.isolate_and_delete_node(n)


def bypass(pass_: BaseNodePass, node: Node, src: OutDataAnchor) -> None:
    """``node`` was a no-op on ``src``: its consumers read ``src``, it is deleted keeping its
    control order (its control predecessors now precede its successors), and so is what it
    leaves unread."""
    producers = node.in_data_nodes()
    relink_input(node, 0, src)
    pass_.isolate_and_delete_node(node)
    for p in producers:
        delete_if_dead(pass_, p)


def replace_node(pass_: BaseNodePass, node: Node, outputs: list[OutDataAnchor | None],
                 new_nodes: list[Node]) -> None:
    """``node`` is superseded: consumers of its output i read ``outputs[i]``; ``new_nodes`` inherit
    its control predecessors (GE links node -> new node, then isolating the node relinks its
    control inputs); it is deleted with what it leaves unread, and GEPass visits the new nodes
    and the consumers (so a fold that makes them foldable cascades in the same run)."""
    for anchor, new in zip(node.out_data_anchors, outputs):
        if new is not None:
            for consumer in move_consumers(anchor, new):
                pass_.add_re_pass_node(consumer)
    for new in new_nodes:
        node.out_control_anchor.link_to(new.in_control_anchor)
    producers = node.in_data_nodes()
    pass_.isolate_and_delete_node(node, {})  # re-passes its neighbours, the new nodes among them
    for p in producers:
        delete_if_dead(pass_, p)
