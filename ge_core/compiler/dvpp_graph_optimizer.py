"""DvppGraphOptimizer: the DVPP engine's original-graph optimizer (GE's DvppOptimizer::
OptimizeOriginalGraph, compiler/engines/dvpp_engine/common/dvpp_optimizer.cc), first of the
engine optimizers in GE's optimizer_priority.pbtxt.

An op asks for the DVPP engine with ``_performance_prior`` (a framework sets it on image
pre-processing). For each such op the optimizer first tries its one special fusion, then claims
the op if the DVPP store accepts it; a claimed op carries ``_specified_engine_name`` and
``_specified_kernel_lib_name``, and the placer then asks only the DVPP engine:

    Mul(Sub(x, mean), scale)  =>  NormalizeV2(x, mean, scale)     (on DVPP)

as SubAndMulFusedIntoNormalizeV2 does: ``_performance_prior`` on the Mul, ``mean`` and ``scale``
Consts, ``x`` not, and both Consts per channel: the same rank (3 or 4) as the image, with a 3 on
the image's 3-channel axis (DvppOpsChecker::CheckAxisC). Two departures: GE fuses on those
checks alone and fails placement if the media unit then refuses the image, where here an image
it cannot take keeps its Sub and Mul; and GE's DVPP engine forces claimed ops to unknown shape
for its 910B kernels, where here they stay static and sink with the rest of the model.
"""
from __future__ import annotations

from typing import Generator

import numpy as np

from ge_core.compiler.op_stores import (DVPP_ENGINE, DVPP_KERNEL_LIB, dvpp_unsupported,
                                        image_unsupported)
from ge_core.graph import ComputeGraph, Node
from ge_core.graph.attr_names import (ATTR_NAME_OP_SPECIFIED_ENGINE_NAME,
                                      ATTR_NAME_OP_SPECIFIED_KERNEL_LIB_NAME,
                                      ATTR_NAME_PERFORMANCE_PRIOR)
from ge_core.passes.graph_pass import finished
from ge_core.pattern_fusion.fused_ops import NORMALIZE_V2
from ge_core.pattern_fusion.pattern import In, Pat, Pattern
from ge_core.pattern_fusion.pattern_fusion_pass import PatternFusionPass
from ge_core.pattern_fusion.pattern_matcher import MatchResult
from ge_core.pattern_fusion.subgraph_rewriter import Ref, Replacement

CLAIMED = {ATTR_NAME_OP_SPECIFIED_ENGINE_NAME: DVPP_ENGINE,
           ATTR_NAME_OP_SPECIFIED_KERNEL_LIB_NAME: DVPP_KERNEL_LIB}


def performance_prior(node: Node) -> bool:
    return bool(node.op_desc.get_attr(ATTR_NAME_PERFORMANCE_PRIOR))


def wants_dvpp(graph: ComputeGraph) -> bool:
    """Whether the DVPP engine has work here: some op asks for it."""
    return any(performance_prior(n) for n in graph.all_nodes())


_sub = Pat("Sub", In("x"), In("mean", const=True), name="sub")
_mul = Pat("Mul", _sub, In("scale", const=True), name="mul")


class DvppGraphOptimizer(PatternFusionPass):
    name = "DvppGraphOptimizer"
    patterns = (Pattern(_mul, name="sub_mul_to_normalize_v2"),)

    def meet_requirements(self, match: MatchResult) -> bool:
        image = match["sub"].op_desc.input_descs[0]
        return (performance_prior(match["mul"])
                and match.input("x").owner.type not in ("Const", "Constant")
                and _per_channel(image.shape.dims, match.const("mean"))
                and _per_channel(image.shape.dims, match.const("scale"))
                and image_unsupported(image) is None)

    def replacement(self, match: MatchResult, rw: Replacement) -> Ref:
        return rw.add(NORMALIZE_V2, [match.input("x"), match.input("mean"),
                                     match.input("scale")], dict(CLAIMED))

    def run(self, graph: ComputeGraph) -> bool:
        return finished(self.walk(graph))

    def walk(self, graph: ComputeGraph) -> Generator[tuple[str, Node], None, bool]:
        """The fusion first (a fused Sub is no longer there to claim), then the claims."""
        fused = yield from super().walk(graph)
        claimed = [n for n in graph.all_nodes() if performance_prior(n)
                   and n.op_desc.get_attr(ATTR_NAME_OP_SPECIFIED_ENGINE_NAME) is None
                   and dvpp_unsupported(n) is None]
        for node in claimed:
            for key, value in CLAIMED.items():
                node.op_desc.set_attr(key, value)
        return fused or bool(claimed)


def _per_channel(image: tuple[int, ...], const: np.ndarray) -> bool:
    """CheckAxisC: the Const has the image's rank (3 or 4) and a 3 where the image has its
    three channels."""
    if const.ndim != len(image) or const.ndim not in (3, 4):
        return False
    axis = next((i for i, d in enumerate(const.shape) if d == 3), None)
    return axis is not None and image[axis] == 3
