"""Small helpers every rewrite needs: reading and making constants."""
from __future__ import annotations

import numpy as np

from ge_core.graph import ComputeGraph, GeShape, GeTensor, GeTensorDesc, Node, OpDesc
from ge_core.graph.types import DataType


def const_value(node: Node | None) -> np.ndarray | None:
    """The value of a Const node, else None."""
    if node is None or node.type != "Const":
        return None
    value = node.op_desc.get_attr("value")
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
    op = OpDesc(graph.unique_name(name), "Const", 0, 1, {"value": GeTensor(data, desc.copy())})
    op.output_descs[0] = desc
    return graph.add_node(op)
