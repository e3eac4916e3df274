"""The base of GE's logical stream passes and the context they share (LogicalStreamPass and its
Context in logical_stream_allocator.h).

Each pass is a GraphPass, so a PassManager runs it as a trace-visible step with a row in the
pass table. The context carries what GE's carries across passes and graphs: the next free
stream id, the default stream of the graph being assigned (its parent node's stream inside an
If/Loop body, else none), the options, and the engine subgraphs of each graph.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ge_core.compiler.stream.stream_options import StreamOptions
from ge_core.compiler.stream.stream_subgraph import StreamSubgraph, stream_subgraphs
from ge_core.compiler.stream.stream_utils import INVALID_STREAM, stream_of
from ge_core.graph import ComputeGraph, Node
from ge_core.passes import GraphPass


@dataclass
class LogicalStreamContext:
    options: StreamOptions
    next_stream: int = 0
    # Nodes UpdateForMdeGroup placed: NodeStreamUpdate leaves them there (see that pass).
    pinned: set[Node] = field(default_factory=set)
    _subgraphs: dict[ComputeGraph, list[StreamSubgraph]] = field(default_factory=dict)

    def subgraphs(self, graph: ComputeGraph) -> list[StreamSubgraph]:
        """Built once per graph, when its assignment starts (GE's ConvertSubgraphs)."""
        if graph not in self._subgraphs:
            self._subgraphs[graph] = stream_subgraphs(graph)
        return self._subgraphs[graph]

    def new_stream(self) -> int:
        self.next_stream += 1
        return self.next_stream - 1

    @staticmethod
    def default_stream(graph: ComputeGraph) -> int:
        """GE: a body's first new stream is its parent node's; the root graph has none."""
        return stream_of(graph.parent_node) if graph.parent_node is not None else INVALID_STREAM


class LogicalStreamPass(GraphPass):
    covers_subgraphs = True  # the allocator runs the chain on each graph itself, root first

    def __init__(self, ctx: LogicalStreamContext) -> None:
        self.ctx = ctx
