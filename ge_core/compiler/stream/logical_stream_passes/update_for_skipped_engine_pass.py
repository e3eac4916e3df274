"""UpdateForSkippedEnginePass: GE-local and host-CPU nodes (skip-assign-stream engines, no
label) launch no task of their own. One whose predecessors are all on stream -1 goes to -1
(Data, a Reshape of a Data); else, if all its neighbours share one stream, it takes that one,
so it adds no event. A node owning a body keeps its stream: the body runs there."""
from __future__ import annotations

from ge_core.compiler.stream.logical_stream_pass import LogicalStreamPass
from ge_core.compiler.stream.stream_utils import INVALID_STREAM, set_stream, stream_of
from ge_core.graph import ComputeGraph


class UpdateForSkippedEnginePass(LogicalStreamPass):
    name = "UpdateForSkippedEnginePass"

    def run(self, graph: ComputeGraph) -> bool:
        skipped = {node for sg in self.ctx.subgraphs(graph)
                   if sg.engine.skip_assign_stream and not sg.label
                   for node in sg.nodes if stream_of(node) != INVALID_STREAM}
        changed = False
        for node in graph:
            if node not in skipped:
                continue
            ins = node.in_nodes()
            if not node.op_desc.subgraph_names and all(stream_of(p) == INVALID_STREAM
                                                       for p in ins):
                changed |= set_stream(node, INVALID_STREAM)
            elif node.out_nodes():
                streams = {stream_of(n) for n in ins + node.out_nodes()} - {INVALID_STREAM}
                if len(streams) == 1:
                    changed |= set_stream(node, streams.pop())
        return changed
