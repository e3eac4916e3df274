"""AllReduceParallelPass (only with hcom_parallel): the transitive data successors of an
HcomAllReduce with ``fusion`` > 0 (same stream label) move to new streams, one per old stream,
so gradient reduction overlaps the backward computation after it. The AllReduce stays."""
from __future__ import annotations

from ge_core.compiler.stream.logical_stream_pass import LogicalStreamPass
from ge_core.compiler.stream.stream_utils import (INVALID_STREAM, set_stream, stream_label,
                                                  stream_of)
from ge_core.graph import ComputeGraph, Node
from ge_core.graph.attr_names import HCOM_ATTR_FUSION

HCOM_ALLREDUCE = "HcomAllReduce"


class AllReduceParallelPass(LogicalStreamPass):
    name = "AllReduceParallelPass"

    def run(self, graph: ComputeGraph) -> bool:
        if not self.ctx.options.hcom_parallel:
            return False
        successors: set[Node] = set()
        for node in graph:
            if node.type == HCOM_ALLREDUCE and node.op_desc.get_attr(HCOM_ATTR_FUSION, -1) > 0:
                successors |= self._successors(node)
        new_streams: dict[int, int] = {}
        for node in (n for n in graph if n in successors):  # graph order: deterministic ids
            old = stream_of(node)
            if old == INVALID_STREAM:
                continue
            if old not in new_streams:
                new_streams[old] = self.ctx.new_stream()
            if node.type != HCOM_ALLREDUCE:
                set_stream(node, new_streams[old])
        return bool(successors)

    @staticmethod
    def _successors(reduce: Node) -> set[Node]:
        label = stream_label(reduce)
        found: set[Node] = set()
        frontier = [reduce]
        while frontier:
            nxt = []
            for node in frontier:
                for out in node.out_data_nodes():
                    out_label = stream_label(out)
                    if (out_label == label or (label and not out_label)) and out not in found:
                        found.add(out)
                        nxt.append(out)
            frontier = nxt
        return found
