"""UpdateForMdeGroupPass: nodes with ``NewStreamId`` (and no ``_parallel_group``) get a fresh
stream per (old stream, NewStreamId value).

GE runs it first, while nodes still hold OpDesc's default stream 0, so in practice each distinct
value gets one stream. GE's NodeStreamUpdate then copies every subgraph's stream onto its nodes;
we let it skip the nodes placed here (ctx.pinned) so the attribute has the effect it is for.
OptimizeIneffectiveMultiStream leaves them alone, as GE's does.
"""
from __future__ import annotations

from ge_core.compiler.stream.logical_stream_pass import LogicalStreamPass
from ge_core.compiler.stream.stream_utils import INVALID_STREAM, set_stream
from ge_core.graph import ComputeGraph, Node
from ge_core.graph.attr_names import ATTR_NAME_PARALLEL_GROUP, NEW_STREAM_ID, STREAM_ID

OP_DESC_DEFAULT_STREAM = 0  # a fresh GE OpDesc's stream id


class UpdateForMdeGroupPass(LogicalStreamPass):
    name = "UpdateForMdeGroupPass"

    def run(self, graph: ComputeGraph) -> bool:
        by_stream: dict[int, list[Node]] = {}
        for sg in self.ctx.subgraphs(graph):
            for node in sg.nodes:
                op = node.op_desc
                if op.has_attr(NEW_STREAM_ID) and not op.has_attr(ATTR_NAME_PARALLEL_GROUP):
                    old = op.get_attr(STREAM_ID, OP_DESC_DEFAULT_STREAM)
                    by_stream.setdefault(old, []).append(node)
        changed = False
        for old in sorted(by_stream):
            if old == INVALID_STREAM:
                continue
            streams: dict[int, int] = {}
            for node in by_stream[old]:
                value = node.op_desc.get_attr(NEW_STREAM_ID)
                if value not in streams:
                    streams[value] = self.ctx.new_stream()
                changed |= set_stream(node, streams[value])
                self.ctx.pinned.add(node)
        return changed
