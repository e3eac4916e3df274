"""Guarders (GE's ValueHolder::SetGuarder): the FreeMemory node of each block Main allocates,
run once every node using the block - through its tensor or a view of it - has run.

Which free list it returns to decides who may reuse the block while the device still lags the
host (caching_mem_allocator.py): the stream of its kernel readers when they all issue to one
stream (stream order puts the next writer there after them); the writer's stream when nothing
reads it. A block read on several streams, copied in by the host and never read, or read by a
graph output, is freed after the final Synchronize, when it is idle everywhere.
"""
from __future__ import annotations

from ge_core.runtime.v2.caching_mem_allocator import HOST
from ge_core.runtime.v2.execute_graph import ExeNode
from ge_core.runtime.v2.lowering.lowering_context import Block, LoweringContext


def free_stream(block: Block) -> int | None:
    """The stream whose free list gets the block, or HOST: free it once all is synchronized."""
    streams = {s for _, s in block.readers if s is not HOST}
    if block.output or len(streams) > 1:
        return HOST
    return streams.pop() if streams else block.writer[1]


def add_guarders(lc: LoweringContext, sync: ExeNode | None) -> None:
    """A FreeMemory per block of ``lc``'s graph, each placed right after the last node using
    the block; ``sync``: the root graph's final Synchronize (a subgraph has none: it runs on
    one stream, where every free is stream-ordered)."""
    frees = []
    for block in lc.blocks.values():
        if block.escapes:
            continue
        stream = free_stream(block)
        users = {block.writer[0], *(node for node, _ in block.readers)}
        if stream is HOST and sync is not None:
            users.add(sync.id)
        frees.append(lc.main.add("FreeMemory", lc.exe.value_names[block.value],
                                 (lc.allocator, block.value), attrs={"stream": stream},
                                 after=sorted(users)))
    _place(lc.main.nodes, frees)


def _place(nodes: list[ExeNode], frees: list[ExeNode]) -> None:
    """Put each free right after the last node it follows (they were appended at the end)."""
    after: dict[int, list[ExeNode]] = {}
    for free in frees:
        after.setdefault(max(free.after), []).append(free)
    others = nodes[:len(nodes) - len(frees)]
    nodes[:] = [n for node in others for n in (node, *after.get(node.id, ()))]
