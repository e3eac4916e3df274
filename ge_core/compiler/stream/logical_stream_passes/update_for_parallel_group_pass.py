"""UpdateForParallelGroupPass: nodes of one ``_parallel_group`` on one stream move together to
a new stream. Group "-1" (hcom) first tries its single input's stream."""
from __future__ import annotations

from ge_core.compiler.stream.logical_stream_pass import LogicalStreamPass
from ge_core.compiler.stream.stream_utils import INVALID_STREAM, set_stream, stream_of
from ge_core.graph import ComputeGraph, Node
from ge_core.graph.attr_names import ATTR_NAME_PARALLEL_GROUP

HCOM_PARALLEL_GROUP = "-1"


class UpdateForParallelGroupPass(LogicalStreamPass):
    name = "UpdateForParallelGroupPass"

    def run(self, graph: ComputeGraph) -> bool:
        by_stream: dict[int, list[Node]] = {}
        for sg in self.ctx.subgraphs(graph):
            for node in sg.nodes:
                if node.op_desc.has_attr(ATTR_NAME_PARALLEL_GROUP):
                    by_stream.setdefault(stream_of(node), []).append(node)
        changed = False
        for old in sorted(by_stream):
            if old == INVALID_STREAM:
                continue
            streams: dict[str, int] = {}
            for node in by_stream[old]:
                group = str(node.op_desc.get_attr(ATTR_NAME_PARALLEL_GROUP))
                if group == HCOM_PARALLEL_GROUP and self._reuse_input_stream(node):
                    changed = True
                    continue
                if group not in streams:
                    streams[group] = self.ctx.new_stream()
                changed |= set_stream(node, streams[group])
        return changed

    @staticmethod
    def _reuse_input_stream(node: Node) -> bool:
        inputs = node.in_data_nodes()
        if len(inputs) == 1 and stream_of(inputs[0]) != INVALID_STREAM:
            set_stream(node, stream_of(inputs[0]))
            return True
        return False
