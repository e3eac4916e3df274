"""RefreshContinuousStreams: after all graphs are assigned, renumber the streams that hold a
node densely from 0, keeping their order (GE's LogicalStreamAllocator does it once, on the
root graph and every body)."""
from __future__ import annotations

from ge_core.compiler.stream.logical_stream_pass import LogicalStreamPass
from ge_core.compiler.stream.stream_utils import INVALID_STREAM, set_stream, stream_of
from ge_core.graph import ComputeGraph


class RefreshContinuousStreamsPass(LogicalStreamPass):
    name = "RefreshContinuousStreams"

    def run(self, graph: ComputeGraph) -> bool:
        nodes = graph.all_nodes()
        used = sorted({stream_of(n) for n in nodes} - {INVALID_STREAM})
        dense = {old: new for new, old in enumerate(used)}
        changed = False
        for node in nodes:
            if stream_of(node) != INVALID_STREAM:
                changed |= set_stream(node, dense[stream_of(node)])
        self.ctx.next_stream = len(used)
        return changed
