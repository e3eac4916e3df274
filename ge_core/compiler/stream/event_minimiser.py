"""Beyond GE: are the events left after GE's optimisations the fewest that keep every
cross-stream dependency ordered?

Take the happens-before graph of stream order, activations and the dependencies (one edge per
cross-stream edge, as first inserted). A dependency is needed as an event iff it survives the
graph's transitive reduction: otherwise some other path (stream order plus other events)
already orders its ends. The reduction of a DAG is unique, so its dependency edges are the
minimum event set; GE's local rules (same sender, same receiver, activation) can leave more,
e.g. in a diamond where one branch's event is implied by the other's. The same reduction over
the events actually kept names those redundant ones; OptimizeByTransitiveReduction (off by
default: ``minimise_events``) drops them. The reduction is asked edge by edge of vector clocks
(happens_before.py), so this costs time linear in the graph.
"""
from __future__ import annotations

from dataclasses import dataclass

from ge_core.compiler.stream.happens_before import HappensBefore
from ge_core.compiler.stream.stream_utils import StreamAllocationError
from ge_core.compiler.stream.sync_events import SyncEvent, SyncPass, SyncState
from ge_core.compiler.stream.topo_order import model_order
from ge_core.graph import ComputeGraph


@dataclass(frozen=True)
class Minimality:
    minimum: int                      # fewest events that order every dependency
    redundant: tuple[SyncEvent, ...]  # events kept whose order others already give


def minimality(state: SyncState) -> Minimality:
    if not state.dependencies:
        return Minimality(0, ())   # one stream (or streams that never meet): nothing to order
    nodes = model_order(state.root)
    needed = HappensBefore(nodes, state.dependencies)
    minimum = sum(1 for pair in dict.fromkeys(state.dependencies) if not needed.implied(*pair))
    kept = HappensBefore(nodes, [(e.src, e.dst) for e in state.events])
    first: dict[tuple, SyncEvent] = {}
    for event in state.events:
        if not kept.implied(event.src, event.dst):
            first.setdefault((event.src, event.dst), event)
    redundant = tuple(e for e in state.events if first.get((e.src, e.dst)) is not e)
    if len(state.events) - len(redundant) != minimum:
        # Equal reductions <=> equal orderings: fewer here means an optimisation lost one.
        raise StreamAllocationError(f"graph {state.root.name}: the {len(state.events)} events "
                                    f"left do not order every cross-stream dependency")
    return Minimality(minimum, redundant)


class OptimizeByTransitiveReduction(SyncPass):
    name = "OptimizeByTransitiveReduction"

    def run(self, graph: ComputeGraph) -> bool:
        redundant = minimality(self.state).redundant
        for event in redundant:
            self.state.remove(event)
        return bool(redundant)
