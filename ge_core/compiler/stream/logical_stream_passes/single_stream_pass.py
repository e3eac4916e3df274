"""SingleStreamPass (ge.enableSingleStream=true): every subgraph goes on one stream, the
graph's default stream (a body's parent's) or a new one. A stream label contradicts the
option, so it is an error, as in GE."""
from __future__ import annotations

from ge_core.compiler.stream.logical_stream_pass import LogicalStreamPass
from ge_core.compiler.stream.stream_utils import INVALID_STREAM, StreamAllocationError
from ge_core.graph import ComputeGraph


class SingleStreamPass(LogicalStreamPass):
    name = "SingleStreamPass"

    def run(self, graph: ComputeGraph) -> bool:
        stream = self.ctx.default_stream(graph)
        if stream == INVALID_STREAM:
            stream = self.ctx.new_stream()
        for sg in self.ctx.subgraphs(graph):
            if sg.label:
                raise StreamAllocationError(
                    f"enable_single_stream conflicts with stream label {sg.label!r} on "
                    f"subgraph {sg.name} (node {sg.nodes[0].name}); turn the option off")
            sg.stream_id = stream
        return True
