"""The WEIGHTS_DATA partition: every Const's bytes at the offset the memory assigner gave it in
the weight segment (its output's logical address minus WEIGHT_BASE), as GE's ModelBuilder lays
out the weight buffer a loader copies to the device in one go.

GE's build copies every weight into that buffer (ModelBuilder::MergeWeights), and the loader
copies the buffer again to the device (or the OM writer into the file). Here the build keeps
the Consts' own arrays at their offsets (``Weights``) and each of those paths copies them once,
straight to where they go: the copy at build was a tenth of Inception-v1's compile and a
seventh of ResNet-50's (28 and 102 MB). A Const's array is never written in place (a pass that
changes a value makes a new tensor), so the arrays are the bytes as built."""
from __future__ import annotations

from typing import Sequence

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


class Weights:
    """A weight buffer of ``size`` bytes: ``pieces``, (offset, bytes as a flat uint8 array), in
    offset order, with zeros between them; where two overlap, the later is laid over the
    earlier. Immutable (copies share it, as they would bytes)."""
    __slots__ = ("size", "pieces")

    def __init__(self, pieces: Sequence[tuple[int, np.ndarray]] = (), size: int = 0) -> None:
        self.pieces = tuple(pieces)
        self.size = size

    @classmethod
    def of(cls, data: bytes) -> "Weights":
        """A buffer read whole (an OM file's partition)."""
        return cls([(0, np.frombuffer(data, np.uint8))], len(data))

    def __len__(self) -> int:
        return self.size

    def buffers(self) -> list:
        """The buffer in consecutive parts, for a join that copies each byte once (the pieces
        and the gaps between them; laid into one buffer where two overlap)."""
        if not self._disjoint():
            out = np.empty(self.size, np.uint8)
            self.copy_into(out)
            return [out.data]
        parts: list = []
        end = 0
        for off, raw in self.pieces:
            parts += [bytes(off - end), raw.data]
            end = off + raw.size
        parts.append(bytes(self.size - end))
        return parts

    def __bytes__(self) -> bytes:
        return b"".join(self.buffers())

    def copy_into(self, out: np.ndarray) -> None:
        """Lay the buffer into ``out`` (``size`` uint8s), the gaps zeroed."""
        end = 0
        for off, raw in self.pieces:
            if off > end:
                out[end:off] = 0
            out[off:off + raw.size] = raw
            end = max(end, off + raw.size)
        out[end:self.size] = 0

    def __eq__(self, other: object) -> bool:
        """The same bytes (a loader shares one copy of equal weights on a device)."""
        if self is other:
            return True
        if isinstance(other, Weights):
            if other.size != self.size:
                return False
            if [(o, r.size) for o, r in self.pieces] == [(o, r.size) for o, r in other.pieces] \
                    and self._disjoint():   # then the pieces and the zeros are all the bytes
                return all(np.array_equal(a, b) for (_, a), (_, b) in zip(self.pieces,
                                                                          other.pieces))
            other = bytes(other)
        return isinstance(other, (bytes, bytearray)) and len(other) == self.size \
            and bytes(self) == other

    __hash__ = None  # type: ignore[assignment]

    def _disjoint(self) -> bool:
        """Whether no piece reaches into the next (they are laid in offset order)."""
        return all(a + ra.size <= b for (a, ra), (b, _) in zip(self.pieces, self.pieces[1:]))

    def __copy__(self) -> "Weights":
        return self

    def __deepcopy__(self, memo: dict) -> "Weights":
        return self

    def __repr__(self) -> str:
        return f"<weights {self.size} bytes in {len(self.pieces)} pieces>"


def pack_weights(graph: ComputeGraph) -> Weights:
    """The weight buffer of ``graph`` and its subgraphs, as the Consts' arrays at their offsets
    (no byte copied: see above)."""
    placed = sorted(_placed(graph), key=lambda p: p[0])
    return Weights([(off, np.ascontiguousarray(data).reshape(-1).view(np.uint8))
                    for off, data in placed], _extent(placed))
