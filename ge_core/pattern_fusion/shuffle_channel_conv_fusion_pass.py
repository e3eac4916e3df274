"""ShuffleChannelConvFusionPass: a channel shuffle feeding a Conv becomes the Conv's way of
reading its input:

    Reshape(x, [N, g, C/g, ...]) -> Transpose(perm [0, 2, 1, ...]) -> Reshape(., x's shape)
        -> Conv(., W, B)   =>   Conv(x, W, B){input_shuffle_group=g}

ShuffleNet shuffles the channels so before each depthwise conv. The three ops cost a Vector
kernel (the Transpose's copy) and an event pair each way between the Vector engine's stream and
the AI Core's; the depthwise conv copies its input into its tap planes anyway, and takes the
channels in shuffled order in that copy (npu_emu/op_impl/depthwise.py). Another Conv shuffles a
copy of its input first, as the Transpose did.

GE's own op for the shuffle is ShuffleChannel (attr group, shuffle_channel_ops.h), which
frameworks' parsers make and the AI Core runs as a kernel of its own; a fusion that makes one of
the three ONNX ops, or folds it into the conv's input, is not GE's (OpenVINO's
ShuffleChannelsFusion matches the same three). The pass runs in OptimizeStage2, once the merge has
put the Vector engine's Transpose back beside the AI Core's Conv; the Conv must be the AI
Core's (or not yet placed).
"""
from __future__ import annotations

from ge_core.graph.op_desc import kernel_attrs
from ge_core.pattern_fusion.fusion_utils import on_ai_core, out_dims
from ge_core.pattern_fusion.pattern import In, Pat, Pattern
from ge_core.pattern_fusion.pattern_fusion_pass import PatternFusionPass
from ge_core.pattern_fusion.pattern_matcher import MatchResult
from ge_core.pattern_fusion.subgraph_rewriter import Ref, Replacement

SHUFFLE_GROUP = "input_shuffle_group"

_split = Pat("Reshape", In("x"), In("split_shape", const=True), name="split")
_swap = Pat("Transpose", _split, name="swap")
_merge = Pat("Reshape", _swap, In("merge_shape", const=True), name="merge")
_conv = Pat("Conv", _merge, In("w"), In("b", optional=True), name="conv", pred=on_ai_core)


class ShuffleChannelConvFusionPass(PatternFusionPass):
    name = "ShuffleChannelConvFusionPass"
    patterns = (Pattern(_conv, name="shuffle_channel_conv"),)

    def meet_requirements(self, match: MatchResult) -> bool:
        return _shuffle_group(match) is not None

    def replacement(self, match: MatchResult, rw: Replacement) -> Ref:
        attrs = kernel_attrs(match["conv"].op_desc)
        return rw.add("Conv", [match.input(n) for n in ("x", "w", "b")],
                      {**attrs, SHUFFLE_GROUP: _shuffle_group(match)})


def _shuffle_group(match: MatchResult) -> int | None:
    """g, when the three ops are a channel shuffle of x: x (N, C, ...) split to (N, g, C/g,
    ...), its two group axes swapped, merged back to x's shape; and the Conv shuffles nothing
    yet. None otherwise."""
    conv, swap = match["conv"], match["swap"]
    x = match.input("x")
    dims, split = out_dims(x.owner, x.idx), out_dims(match["split"])
    if dims is None or split is None or len(dims) < 3 or any(d < 1 for d in dims) \
            or conv.op_desc.get_attr(SHUFFLE_GROUP, 1) != 1:
        return None
    n, c, spatial = dims[0], dims[1], tuple(dims[2:])
    perm = swap.op_desc.get_attr("perm")
    g = split[1] if len(split) == len(dims) + 1 else 0
    if g < 2 or c % g or split != (n, g, c // g, *spatial) \
            or list(perm or ()) != [0, 2, 1, *range(3, len(split))] \
            or out_dims(match["merge"]) != tuple(dims):
        return None
    return g
