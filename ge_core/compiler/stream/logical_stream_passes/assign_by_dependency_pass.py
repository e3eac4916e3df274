"""AssignByDependencyPass: a subgraph reuses a predecessor's stream when GE's rules allow,
else takes a new stream of its engine, round-robin over ``stream_max_parallel_num``.

A predecessor's stream can be reused when it has no label and its engine is not independent,
no *other* successor of it runs its engine (that sibling would compete for the stream: this is
what sends parallel branches to new streams), and either the engines match, this engine may
attach to another's stream, or the predecessor itself reused a stream of this engine. Among
several, the cheapest engine wins (first in subgraph order on a tie).

New streams are numbered per engine first; once all subgraphs are seen, each engine gets a
block of real ids (engines in name order, as GE's std::map). In a body the first of them is
the parent's stream instead.
"""
from __future__ import annotations

from ge_core.compiler.stream.logical_stream_pass import LogicalStreamPass
from ge_core.compiler.stream.stream_subgraph import StreamSubgraph
from ge_core.compiler.stream.stream_utils import INVALID_STREAM
from ge_core.graph import ComputeGraph


def could_reuse(sg: StreamSubgraph, pred: StreamSubgraph, rivals: int) -> bool:
    """``rivals``: how many successors of ``pred`` run its engine."""
    if pred.engine.independent or pred.label:
        return False
    if rivals - (sg.engine.name == pred.engine.name) > 0:   # a sibling of its engine
        return False
    if sg.engine.name == pred.engine.name or sg.engine.attach:
        return True
    return pred.reused_subgraph is not None and pred.reused_subgraph.engine.name == sg.engine.name


class AssignByDependencyPass(LogicalStreamPass):
    name = "AssignByDependencyPass"

    def run(self, graph: ComputeGraph) -> bool:
        self._next: dict[str, int] = {}      # engine -> its next stream, before numbering
        self._count: dict[str, int] = {}     # engine -> streams it used
        self._assigned: list[StreamSubgraph] = []
        reusing: list[StreamSubgraph] = []
        # per subgraph, its successors of its own engine: counted once, where each successor
        # counted them (a Split read by 4000 branches: 16M looks)
        rivals: dict[StreamSubgraph, int] = {}
        for sg in self.ctx.subgraphs(graph):
            if sg.stream_id != INVALID_STREAM:
                continue  # placed by label or as an independent engine
            for p in sg.preds:
                if p not in rivals:
                    rivals[p] = sum(s.engine.name == p.engine.name for s in p.succs)
            candidates = [p for p in sg.preds if could_reuse(sg, p, rivals[p])]
            if not candidates:
                self._assign_new_stream(sg)
                continue
            pred = min(candidates, key=lambda p: p.engine.cost)
            sg.stream_id = pred.stream_id
            sg.reused_subgraph = pred.reused_subgraph or pred
            reusing.append(sg)
        self._number_new_streams(graph)
        for sg in reusing:
            sg.stream_id = sg.reused_subgraph.stream_id
        return bool(self._assigned or reusing)

    def _assign_new_stream(self, sg: StreamSubgraph) -> None:
        engine = sg.engine.name
        stream = self._next.get(engine, 0)
        if stream >= self.ctx.options.stream_max_parallel_num:
            stream = 0
        sg.stream_id = stream
        self._next[engine] = stream + 1
        self._count[engine] = max(self._count.get(engine, 0), stream + 1)
        self._assigned.append(sg)

    def _number_new_streams(self, graph: ComputeGraph) -> None:
        default = self.ctx.default_stream(graph)
        replaced = INVALID_STREAM
        # GE steps next_stream back so the ids stay dense once the first becomes the default
        # stream; it does so even when nothing was assigned, handing out a used id next. We
        # step back only when a stream is really replaced.
        if default != INVALID_STREAM and self._assigned:
            self.ctx.next_stream -= 1
            replaced = self.ctx.next_stream
        start: dict[str, int] = {}
        for engine in sorted(self._count):
            start[engine] = self.ctx.next_stream
            self.ctx.next_stream += self._count[engine]
        for sg in self._assigned:
            sg.stream_id += start[sg.engine.name]
            if sg.stream_id == replaced:
                sg.stream_id = default
