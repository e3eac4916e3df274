"""ReshapeRemovePass (GE's reshape_remove_pass.cc): a Reshape that keeps its input's shape goes, and
a Reshape of a Reshape reads the first one's input. GE removes every static Reshape, its memory
being flat; our kernels see array shapes, so only these two rewrites keep the numbers."""
from __future__ import annotations

import numpy as np

from ge_core.graph import Node
from ge_core.passes.pass_utils import (bypass, delete_if_dead, input_const, producer, relink_input,
                                       static_dims)
from ge_core.passes.rewrite_pass import RewritePass


def _target(node: Node) -> list[int] | None:
    """The shape operand: an attr before opset 5, then input 1 (known when a Const feeds it)."""
    value = node.op_desc.get_attr("shape")
    value = input_const(node, 1) if value is None else value
    return None if value is None else [int(d) for d in np.asarray(value).reshape(-1)]


def _remove_identity(pass_: RewritePass, node: Node) -> bool:
    dims = static_dims(node.op_desc.input_descs[0])
    if dims is None or dims != static_dims(node.op_desc.output_descs[0]):
        return False
    bypass(pass_, node, node.in_data_anchors[0].peer)
    return True


def _collapse_chain(pass_: RewritePass, node: Node) -> bool:
    first, target = producer(node, "Reshape"), _target(node)
    # A 0 in the target copies the input's dim (unless allowzero), which would now be x's.
    if first is None or target is None or (0 in target and not node.op_desc.get_attr("allowzero")):
        return False
    relink_input(node, 0, first.in_data_anchors[0].peer)
    delete_if_dead(pass_, first)
    return True


class ReshapeRemovePass(RewritePass):
    name = "ReshapeRemovePass"
    rules = (
        (("Reshape",), _remove_identity),  # Reshape(x) -> x, when the shape stays the same
        (("Reshape",), _collapse_chain),   # Reshape(Reshape(x, s1), s2) -> Reshape(x, s2)
    )
