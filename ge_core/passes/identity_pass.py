"""IdentityPass (GE's IdentityPass and DropOutPass): Identity, and Dropout at inference with
its mask unread, pass their input through unchanged, so their consumers read the input.

GE removes them before engine placement - IdentityPass and DropOutPass in GraphPrepare's
PrepareOptimize, IdentityPass again at the end of OptimizeStage1_3 (graph_prepare.cc,
graph_manager.cc) - because its GE-local store holds Identity only as a GeDeletedOp, which fails;
this pass runs among stage 1's node passes, before placement too."""
from __future__ import annotations

from ge_core.graph import Node
from ge_core.passes.pass_utils import bypass, input_const
from ge_core.passes.rewrite_pass import RewritePass


def _remove(pass_: RewritePass, node: Node) -> bool:
    bypass(pass_, node, node.in_data_anchors[0].peer)
    return True


def _in_training(node: Node) -> bool:
    """Opset 12's training_mode input, unless absent or a false Const; before 12 the kernels run
    every Dropout as at inference (as onnxruntime does)."""
    anchors = node.in_data_anchors
    if len(anchors) < 3 or anchors[2].peer is None:
        return False
    mode = input_const(node, 2)
    return mode is None or bool(mode.any())


def _remove_inference_dropout(pass_: RewritePass, node: Node) -> bool:
    if any(a.peers for a in node.out_data_anchors[1:]) or _in_training(node):
        return False
    return _remove(pass_, node)


class IdentityPass(RewritePass):
    name = "IdentityPass"
    rules = (
        (("Identity",), _remove),                     # Identity(x) -> x
        (("Dropout",), _remove_inference_dropout),    # Dropout(x), mask unread, inference -> x
    )
