"""What several fusions ask of a match: output dims, BN mode, how a Const operand broadcasts,
whether a node is the AI Core's."""
from __future__ import annotations

import numpy as np

from ge_core.graph import Node, OutDataAnchor
from ge_core.graph.attr_names import ENGINE
from ge_core.graph.types import DataType
from ge_core.passes.pass_utils import const_value, graph_opset


def on_ai_core(node: Node) -> bool:
    """Whether ``node`` runs on the AI Core or is not placed yet: stage 2's fusions join ops on
    the AI Core only (a compile that excludes it keeps them apart, as FE's UB fusion would)."""
    return node.op_desc.get_attr(ENGINE) in (None, "AIcoreEngine")


def out_dims(node: Node, idx: int = 0) -> tuple[int, ...] | None:
    """Output ``idx``'s dims when its rank is known (InferShape ran), else None."""
    shape = node.op_desc.output_descs[idx].shape
    return None if shape.rank is None else shape.dims


def input_index(node: Node, src: OutDataAnchor) -> int:
    return next(a.idx for a in node.in_data_anchors if a.peer is src)


def is_inference_bn(node: Node) -> bool:
    """A BatchNormalization that normalises per channel with given statistics: BN-1..7's
    ``spatial`` is 1 (the default) and BN-14+'s ``training_mode`` is 0 (the default)."""
    op = node.op_desc
    return op.get_attr("spatial", 1) == 1 and not op.get_attr("training_mode", 0)


def operand_shape(node: Node, src: OutDataAnchor) -> tuple[int, ...] | None:
    """The shape of the Const ``src`` as it broadcasts in ``node`` (a binary elementwise op):
    left-padded to the output's rank, or placed at ``axis`` under opset 1-6's ``broadcast=1``.
    None if it cannot be placed, or if it would widen the other operand or change its dtype."""
    idx, dims, value = input_index(node, src), out_dims(node), const_value(src.owner)
    other = node.op_desc.input_descs[1 - idx]
    if dims is None or value is None or other.shape.dims != dims \
            or other.dtype == DataType.DT_UNDEFINED or value.dtype != other.dtype.to_numpy():
        return None
    shape, rank = value.shape, len(dims)
    if graph_opset(node.graph) < 7:
        if idx != 1:
            return None  # only the right operand broadcast then
        axis = node.op_desc.get_attr("axis")
        if not node.op_desc.get_attr("broadcast", 0):
            if shape != dims:
                return None
        elif axis is not None and shape:
            after = rank - axis % rank - len(shape)
            if after < 0:
                return None
            shape += (1,) * after
    if len(shape) > rank:
        return None
    shape = (1,) * (rank - len(shape)) + shape
    return shape if all(s in (1, d) for s, d in zip(shape, dims)) else None


def channel_vector(node: Node, src: OutDataAnchor) -> np.ndarray | None:
    """The Const ``src`` as one value per channel (axis 1) of ``node``'s N,C,... output, if
    that is all it is: [C,1,1], [1,C,1,1], a scalar, or [C] at axis 1 under opset 1-6."""
    shape = operand_shape(node, src)
    if shape is None or len(shape) < 2 or any(s != 1 for i, s in enumerate(shape) if i != 1):
        return None
    channels = out_dims(node)[1]
    if channels < 0:
        return None
    return np.broadcast_to(const_value(src.owner).reshape(-1), (channels,)).copy()
