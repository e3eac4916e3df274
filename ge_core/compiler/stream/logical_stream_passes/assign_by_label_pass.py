"""AssignByLabelPass: each distinct ``_stream_label`` gets one new stream; every subgraph with
that label goes on it."""
from __future__ import annotations

from ge_core.compiler.stream.logical_stream_pass import LogicalStreamPass
from ge_core.graph import ComputeGraph


class AssignByLabelPass(LogicalStreamPass):
    name = "AssignByLabelPass"

    def run(self, graph: ComputeGraph) -> bool:
        label_streams: dict[str, int] = {}
        changed = False
        for sg in self.ctx.subgraphs(graph):
            if sg.label:
                if sg.label not in label_streams:
                    label_streams[sg.label] = self.ctx.new_stream()
                sg.stream_id = label_streams[sg.label]
                changed = True
        return changed
