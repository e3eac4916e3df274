"""AssignLabelBodyStreamsPass (not GE): the streams of the If/While/Case bodies that label
lowering inlined into the parent graph (ge_core/compiler/label/label_maker.py).

GE keeps a lowered body as a subgraph and runs the logical stream passes on it as a graph of its
own (logical_stream_allocator.cc): the body's label nodes take its parent's stream
(NodeStreamUpdatePass, ``_rts_label_node``), its first new stream is its parent's, and each
other stream it needs is new, started by the body's first-active StreamActive
(StreamAllocator::SetActiveStreamsForSubgraphs). Our bodies are inlined before the passes run,
so the chain assigned them as part of the parent graph; this pass gives them what GE's
per-body assignment would:

- a region's own nodes (labels, StreamActives, copies, a loop's counter) one stream, the one
  its first node got: the parent's stream, where the jumps are. This goes first, for all
  regions, so that an inner region counts as one stream in its outer body, as GE's If or While
  node is one node of the body it lies in (else its leaving LabelSet, chained to what follows,
  could be a body's lowest stream alone and the rest of the body land on a new one);
- each body's streams, lowest first: the lowest becomes the parent's stream, each other a new
  stream no node outside the body uses, so it runs only when the body's StreamActive starts it
  (a branch not taken starts none of them).

Outer regions go first: an inner region lies in an outer body and moves with it, then gets its
own. Nodes with a ``_stream_label`` keep their stream (AssignByLabel's; GE's
SetActiveStreamsForSubgraphs skips them too), and nodes on no stream stay there.
"""
from __future__ import annotations

from typing import Iterable

from ge_core.compiler.stream.logical_stream_pass import LogicalStreamPass
from ge_core.compiler.stream.stream_utils import (INVALID_STREAM, set_stream, stream_label,
                                                  stream_of)
from ge_core.graph import ComputeGraph, Node
from ge_core.graph.attr_names import LABEL_BODIES, LABEL_REGION


def bodies_of(node: Node) -> list[str]:
    """The inlined bodies ``node`` lies in, outer first."""
    return list(node.op_desc.get_attr(LABEL_BODIES) or ())


def region_of(body: str) -> str:
    return body.rpartition(":")[0]


class AssignLabelBodyStreamsPass(LogicalStreamPass):
    name = "AssignLabelBodyStreamsPass"

    def run(self, graph: ComputeGraph) -> bool:
        nodes = [n for n in graph.topological_sort()
                 if not stream_label(n) and stream_of(n) != INVALID_STREAM]
        spines: dict[str, list[Node]] = {}
        # (region, depth) -> each body of the region at that depth -> its nodes, in build
        # order: read off every node once, not by every region from all of them (4000 Ifs
        # read 16k nodes each)
        bodies: dict[tuple[str, int], dict[str, list[Node]]] = {}
        for node in nodes:
            region = node.op_desc.get_attr(LABEL_REGION)
            if region is not None:
                spines.setdefault(region, []).append(node)
            for depth, body in enumerate(bodies_of(node)):
                bodies.setdefault((region_of(body), depth), {}).setdefault(body, []).append(node)
        changed = False
        for spine in spines.values():
            for node in spine:
                changed |= set_stream(node, stream_of(spine[0]))
        for region in sorted(spines, key=lambda r: len(bodies_of(spines[r][0]))):
            spine = spines[region]
            body_nodes = bodies.get((region, len(bodies_of(spine[0]))), {})
            changed |= self._assign(stream_of(spine[0]), body_nodes.values())
        return changed

    def _assign(self, parent: int, bodies: Iterable[list[Node]]) -> bool:
        changed = False
        for members in bodies:
            streams = sorted({stream_of(n) for n in members})
            remap = {s: parent if i == 0 else self.ctx.new_stream() for i, s in enumerate(streams)}
            for node in members:
                changed |= set_stream(node, remap[stream_of(node)])
        return changed
