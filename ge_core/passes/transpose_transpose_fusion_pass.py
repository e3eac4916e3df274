"""TransposeTransposeFusionPass: two Transposes in a row are one, with the composed permutation,
or none when the composition is the identity.

y = transpose(transpose(x, p1), p2) reads y[i] from x[p1[p2[i]]], so the fused perm is
[p1[j] for j in p2].
"""
from __future__ import annotations

from ge_core.graph import Node
from ge_core.passes.pass_utils import bypass, delete_if_dead, producer, relink_input
from ge_core.passes.rewrite_pass import RewritePass


def _perm(node: Node) -> list[int] | None:
    perm = node.op_desc.get_attr("perm")
    if perm is not None:
        return [int(p) for p in perm]
    rank = node.op_desc.input_descs[0].shape.rank  # no perm: the dims reversed
    return None if rank is None else list(reversed(range(rank)))


def _reads_as_written(node: Node) -> bool:
    """Whether ``node``'s input desc is the shape its producer wrote. ReshapeRemovePass, in the
    same walk, leaves a Reshape's consumer its own input desc: a Transpose after a removed
    Reshape reads its producer's data in another shape (two channel shuffles in a row, of 4
    groups then of 2), and the two perms compose into nothing meaningful."""
    src = node.in_data_anchors[0].peer
    return src.owner.op_desc.output_descs[src.idx].shape.dims == \
        node.op_desc.input_descs[0].shape.dims


def _fuse(pass_: RewritePass, node: Node) -> bool:
    first = producer(node, "Transpose")
    p1, p2 = (_perm(first), _perm(node)) if first is not None else (None, None)
    if p1 is None or p2 is None or len(p1) != len(p2) or \
            not (_reads_as_written(node) and _reads_as_written(first)):
        return False
    perm = [p1[j] for j in p2]
    x = first.in_data_anchors[0].peer
    if perm == list(range(len(perm))):
        bypass(pass_, node, x)  # deletes `first` too if now unread
        return True
    relink_input(node, 0, x)
    node.op_desc.set_attr("perm", perm)
    delete_if_dead(pass_, first)
    return True


class TransposeTransposeFusionPass(RewritePass):
    name = "TransposeTransposeFusionPass"
    rules = (
        # Transpose(Transpose(x, p1), p2) -> Transpose(x, p1 o p2), or x when that is the identity
        (("Transpose",), _fuse),
    )
