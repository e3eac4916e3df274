"""CastRemovePass (GE's cast_remove_pass.cc): a Cast that changes nothing goes, and so does a
round trip through a type that holds every value of the original one."""
from __future__ import annotations

import numpy as np

from ge_core.graph import Node
from ge_core.graph.types import DataType
from ge_core.passes.pass_utils import bypass, producer
from ge_core.passes.rewrite_pass import RewritePass


def _holds_all(a: DataType, b: DataType) -> bool:
    """Every value of ``a`` survives a -> b -> a. numpy's 'safe' casts, except integers into a
    float no wider than themselves (int64 -> float64 rounds above 2**53)."""
    try:
        na, nb = a.to_numpy(), b.to_numpy()
    except TypeError:  # strings, sequences, undefined: not judged
        return False
    return np.can_cast(na, nb, "safe") and not (na.kind in "iu" and nb.kind == "f"
                                                and na.itemsize >= nb.itemsize)


def _dtypes(node: Node) -> tuple[DataType, DataType]:
    return node.op_desc.input_descs[0].dtype, node.op_desc.output_descs[0].dtype


def _remove_same_type(pass_: RewritePass, node: Node) -> bool:
    a, b = _dtypes(node)
    if a != b or a == DataType.DT_UNDEFINED:
        return False
    bypass(pass_, node, node.in_data_anchors[0].peer)
    return True


def _remove_round_trip(pass_: RewritePass, node: Node) -> bool:
    first = producer(node, "Cast")
    if first is None:
        return False
    a, b = _dtypes(first)
    if _dtypes(node) != (b, a) or not _holds_all(a, b):
        return False
    bypass(pass_, node, first.in_data_anchors[0].peer)  # deletes `first` too if now unread
    return True


class CastRemovePass(RewritePass):
    name = "CastRemovePass"
    rules = (
        (("Cast",), _remove_same_type),   # Cast(x: A -> A) -> x
        (("Cast",), _remove_round_trip),  # Cast(Cast(x: A -> B) -> A) -> x, B holding all of A
    )
