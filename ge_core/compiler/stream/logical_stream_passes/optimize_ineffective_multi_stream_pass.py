"""OptimizeIneffectiveMultiStreamPass: a node alone on its stream among its neighbours costs an
event each way and buys no overlap if, on a neighbour's stream, nothing runs between its
closest input there and its closest output there; it moves onto that stream.

Nodes placed by label, NewStreamId or parallel group stay, and nothing moves onto a labelled
stream. Node ids are positions in the build order (GE's op ids).
"""
from __future__ import annotations

from bisect import bisect_right, insort

from ge_core.compiler.stream.logical_stream_pass import LogicalStreamPass
from ge_core.compiler.stream.stream_utils import (INVALID_STREAM, set_stream, stream_label,
                                                  stream_of)
from ge_core.graph import ComputeGraph, Node
from ge_core.graph.attr_names import ATTR_NAME_PARALLEL_GROUP, NEW_STREAM_ID


class OptimizeIneffectiveMultiStreamPass(LogicalStreamPass):
    name = "OptimizeIneffectiveMultiStreamPass"

    def run(self, graph: ComputeGraph) -> bool:
        ids = {node: i for i, node in enumerate(graph)}
        on_stream: dict[int, list[int]] = {}  # stream -> ascending ids of its nodes
        labelled: set[int] = set()
        for node in graph:
            stream = stream_of(node)
            if stream != INVALID_STREAM:
                on_stream.setdefault(stream, []).append(ids[node])
                if stream_label(node):
                    labelled.add(stream)
        changed = False
        for node in graph:
            stream = stream_of(node)
            op = node.op_desc
            if stream == INVALID_STREAM or stream_label(node) or op.has_attr(NEW_STREAM_ID) \
                    or op.has_attr(ATTR_NAME_PARALLEL_GROUP):
                continue
            ins, outs = node.in_nodes(), node.out_nodes()
            if any(stream_of(n) == stream for n in ins + outs):
                continue  # moving it away would trade one event for another
            last_in, first_out = _closest_io(ins, outs, ids)
            for target in sorted(last_in.keys() & first_out.keys()):
                if target in labelled:
                    continue
                there = on_stream[target]
                after = bisect_right(there, last_in[target])
                if after < len(there) and there[after] == first_out[target]:
                    set_stream(node, target)
                    on_stream[stream].remove(ids[node])
                    insort(there, ids[node])
                    changed = True
                    break
        return changed


def _closest_io(ins: list[Node], outs: list[Node],
                ids: dict[Node, int]) -> tuple[dict[int, int], dict[int, int]]:
    """Per neighbour stream: the latest input's id, and the earliest output's id."""
    last_in: dict[int, int] = {}
    first_out: dict[int, int] = {}
    for node in ins:
        if stream_of(node) != INVALID_STREAM:
            last_in[stream_of(node)] = max(last_in.get(stream_of(node), -1), ids[node])
    for node in outs:
        if stream_of(node) != INVALID_STREAM:
            first_out[stream_of(node)] = min(first_out.get(stream_of(node), len(ids)), ids[node])
    return last_in, first_out
