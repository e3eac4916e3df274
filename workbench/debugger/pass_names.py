"""The names `break pass` accepts: GE's pass lists' passes and the node passes run inside them
(a NodePassGroup's members, InferShapeAndFoldPass's ConstantFoldingPass), and the build's
stream passes (the logical stream and sync event chains)."""
from __future__ import annotations

from functools import cache

from ge_core.compiler import pass_lists
from ge_core.compiler.stream import stream_allocator
from ge_core.passes import GraphPass, NodePassGroup
from ge_core.passes.constant_folding_pass import ConstantFoldingPass

ENGINES_WITH_PASSES = ("AIcoreEngine",)


@cache
def known_pass_names() -> tuple[str, ...]:
    passes = [*pass_lists.original_graph_passes(), *pass_lists.after_merge_passes()]
    for engine in ENGINES_WITH_PASSES:
        passes += pass_lists.engine_passes(engine)
    names = {p.name for p in passes} | {ConstantFoldingPass.name}
    names |= {inner.name for p in passes if isinstance(p, NodePassGroup) for inner in p.passes}
    return tuple(sorted(names | _stream_pass_names()))


def _stream_pass_names() -> set[str]:
    """Every named GraphPass of the build's stream allocation (its chains are made per graph)."""
    found, todo = set(), [GraphPass]
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if cls.__module__.startswith(stream_allocator.__package__) and cls.name:
            found.add(cls.name)
    return found
