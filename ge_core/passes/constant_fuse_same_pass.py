"""ConstantFuseSamePass (GE's constant_fuse_same_pass.cc): Consts with the same dtype, shape and
bytes are one, the first by insertion order, so a weight is stored and loaded once. A Const with
control inputs is left alone: merging it would impose that order on the survivor's readers.

Candidates are bucketed by a cheap sample of their values and only then compared whole: hashing
every weight's bytes cost ResNet-50 a quarter of its compile time."""
from __future__ import annotations

import numpy as np

from ge_core.graph import Node
from ge_core.passes.graph_pass import NodeLoopPass
from ge_core.passes.pass_utils import const_value, merge_into


class ConstantFuseSamePass(NodeLoopPass):
    name = "ConstantFuseSamePass"

    def visit(self, node: Node, keepers: dict[tuple, tuple[Node, ...]]) -> bool:
        value = const_value(node)
        if value is None or node.in_control_anchor.peers:
            return False
        key = _sample(value)
        bucket = keepers.get(key, ())
        keeper = next((k for k in bucket if _same(const_value(k), value)), None)
        if keeper is None:   # a tuple, not a list grown in place: a checkpoint's copy shares it
            keepers[key] = bucket + (node,)
            return False
        merge_into(node, keeper)
        return True


def _sample(data: np.ndarray) -> tuple:
    """dtype, shape and up to 64 evenly spaced values: equal tensors always agree here."""
    flat = np.asarray(data).reshape(-1)
    picked = flat[:: max(1, flat.size // 64)][:64]
    return data.dtype.str, data.shape, picked.tobytes() if not data.dtype.hasobject \
        else repr(picked.tolist())


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b))
