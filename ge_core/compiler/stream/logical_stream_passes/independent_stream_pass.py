"""IndependentStreamPass: an independent engine (HCCL) gets a stream of its own per
(engine, stream label), so collective communication never queues behind computation."""
from __future__ import annotations

from ge_core.compiler.stream.logical_stream_pass import LogicalStreamPass
from ge_core.graph import ComputeGraph


class IndependentStreamPass(LogicalStreamPass):
    name = "IndependentStreamPass"

    def run(self, graph: ComputeGraph) -> bool:
        streams: dict[tuple[str, str], int] = {}
        changed = False
        for sg in self.ctx.subgraphs(graph):
            if not sg.engine.independent:
                continue
            key = (sg.engine.name, sg.label)
            if key not in streams:
                streams[key] = self.ctx.new_stream()
            sg.stream_id = streams[key]
            changed = True
        return changed
