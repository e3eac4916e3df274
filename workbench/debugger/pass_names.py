"""The names `break pass` accepts: GE's pass lists' passes and the node passes run inside them
(a NodePassGroup's members, InferShapeAndFoldPass's ConstantFoldingPass)."""
from __future__ import annotations

from functools import cache

from ge_core.compiler import pass_lists
from ge_core.passes import NodePassGroup
from ge_core.passes.constant_folding_pass import ConstantFoldingPass
from ge_core.passes.multi_batch import MultiBatchClonePass

ENGINES_WITH_PASSES = ("AIcoreEngine",)


@cache
def known_pass_names() -> tuple[str, ...]:
    passes = [*pass_lists.original_graph_passes(), *pass_lists.after_merge_passes(),
              *pass_lists.multi_batch_passes(True), *pass_lists.autofuse_passes(True)]
    for engine in ENGINES_WITH_PASSES:
        passes += pass_lists.engine_passes(engine)
    names = {p.name for p in passes} | {ConstantFoldingPass.name, MultiBatchClonePass.name}
    names |= {inner.name for p in passes if isinstance(p, NodePassGroup) for inner in p.passes}
    return tuple(sorted(names))
