"""The WEIGHTS_DATA partition: every Const's bytes at the offset the memory assigner gave it in
the weight segment (its output's logical address minus WEIGHT_BASE), as GE's ModelBuilder lays
out the weight buffer a loader copies to the device in one go."""
from __future__ import annotations

import numpy as np

from ge_core.graph import ComputeGraph, GeTensor, Node
from ge_core.graph.attr_names import ATTR_NAME_WEIGHTS, OUTPUT_OFFSET
from ge_core.om.logical_memory import HOST_FM_BASE, WEIGHT_BASE

CONST_TYPES = frozenset({"Const", "Constant"})


def weight_offset(node: Node) -> int | None:
    """The Const's offset in the weights, or None if it has no weight address."""
    value = node.op_desc.get_attr(ATTR_NAME_WEIGHTS)
    if node.type not in CONST_TYPES or not isinstance(value, GeTensor):
        return None
    offsets = node.op_desc.get_attr(OUTPUT_OFFSET) or []
    if not offsets or not WEIGHT_BASE <= offsets[0] < HOST_FM_BASE:
        return None
    return offsets[0] - WEIGHT_BASE


def _placed(graph: ComputeGraph) -> list[tuple[int, np.ndarray]]:
    return [(off, node.op_desc.get_attr(ATTR_NAME_WEIGHTS).data) for node in graph.all_nodes()
            if (off := weight_offset(node)) is not None]


def weights_size(graph: ComputeGraph) -> int:
    """The weight buffer's length: the furthest weight's end. An empty weight still holds its
    address, so it reaches a byte past it (the loader maps no address past the buffer)."""
    return _extent(_placed(graph))


def _extent(placed: list[tuple[int, np.ndarray]]) -> int:
    return max((off + max(data.nbytes, 1) for off, data in placed), default=0)


def pack_weights(graph: ComputeGraph) -> bytes:
    """The weight buffer of ``graph`` and its subgraphs. Each weight's bytes are copied once,
    into the result (VGG-19 packs 548 MB): joined with the zero gaps between them, unless two
    weights overlap, when they are laid into a zeroed buffer in order (which copies twice)."""
    placed = sorted(_placed(graph), key=lambda p: p[0])
    raws = [(off, np.ascontiguousarray(data).reshape(-1).view(np.uint8)) for off, data in placed]
    pieces: list = []
    end = 0
    for off, raw in raws:
        if off < end:
            return _laid(raws, _extent(placed))
        pieces += [bytes(off - end), raw.data]
        end = off + raw.size
    pieces.append(bytes(_extent(placed) - end))
    return b"".join(pieces)


def _laid(raws: list[tuple[int, np.ndarray]], extent: int) -> bytes:
    buf = np.zeros(extent, np.uint8)
    for off, raw in raws:
        buf[off:off + raw.size] = raw
    return buf.tobytes()
