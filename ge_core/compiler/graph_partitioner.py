"""GraphPartitioner: cut the graph into per-engine subgraphs and merge them back (GE's
EnginePartitioner / GraphPartitioner).

Each subgraph holds a run of same-engine nodes; a tensor crossing a cut leaves its producer's
subgraph through an End node and enters each consumer's subgraph through a PlaceHolder, both
tagged with the crossing tensor's original label, so the merge can rejoin them even after an
engine's optimiser rewrote the producer. Runs come from a topological order that keeps the
current engine while it can: a cut of a topological order can never form a cycle. Constants
do not split runs: each is copied into every subgraph that reads it, so an engine's optimiser
sees its weights as constants (Conv+BN folding needs that); the merge keeps one copy.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field

from ge_core.graph import ComputeGraph, GraphError, GraphUtils, Node, OpDesc
from ge_core.graph.attr_names import ATTR_NAME_WEIGHTS, ENGINE, PEER_LABEL


@dataclass
class EngineSubgraph:
    index: int
    engine: str
    graph: ComputeGraph
    ctrl_out: list[tuple[str, str]] = field(default_factory=list)  # cross-cut control edges


def engine_of(node: Node) -> str:
    return node.op_desc.get_attr(ENGINE, "")


def engine_grouped_order(graph: ComputeGraph) -> list[Node]:
    """Kahn's order of the non-Const nodes that stays on the current engine while it can."""
    nodes = [n for n in graph if n.type != "Const"]
    pending = {n: sum(p.type != "Const" for p in n.in_nodes()) for n in nodes}
    ready: dict[str, list] = {}
    for n in nodes:
        if pending[n] == 0:
            heapq.heappush(ready.setdefault(engine_of(n), []), (n.seq, n.name, n))
    order: list[Node] = []
    current = ""
    while any(ready.values()):
        if not ready.get(current):
            current = min((h[0][0], e) for e, h in ready.items() if h)[1]
        node = heapq.heappop(ready[current])[2]
        order.append(node)
        for succ in node.out_nodes():
            pending[succ] -= 1
            if pending[succ] == 0:
                heapq.heappush(ready.setdefault(engine_of(succ), []), (succ.seq, succ.name, succ))
    if len(order) != len(nodes):
        graph.topological_sort()  # raises, naming a node on the cycle
    return order


def _adopt(graph: ComputeGraph, op_desc: OpDesc, copy: bool = False) -> Node:
    """Place ``op_desc`` (a clone of it, if ``copy``) in ``graph``; bodies it owns follow it.
    A node moves with its own desc, as GE's partition moves the node: its old place is
    emptied once the cut is made, so a clone would only be a copy to make and collect."""
    node = graph.add_node(op_desc.clone() if copy else op_desc)
    for name in node.op_desc.subgraph_names:
        body = graph.subgraph(name)
        body.parent_node, body.parent_graph = node, graph
    return node


class GraphPartitioner:
    def partition(self, graph: ComputeGraph) -> list[EngineSubgraph]:
        order = engine_grouped_order(graph)
        part_of: dict[str, int] = {}
        parts: list[EngineSubgraph] = []
        for node in order:
            if not parts or parts[-1].engine != engine_of(node):
                sub = ComputeGraph(f"{graph.name}_{len(parts)}_{engine_of(node) or 'none'}",
                                   graph.bus)
                sub.share_subgraphs_of(graph)
                sub.attrs = dict(graph.attrs)
                parts.append(EngineSubgraph(len(parts), engine_of(node), sub))
            part_of[node.name] = len(parts) - 1
            _adopt(parts[-1].graph, node.op_desc)
        # A constant is copied into every subgraph that reads it (the merge keeps one), so
        # each engine's optimiser sees its weights as constants even when layers share them.
        const_parts: dict[str, list[int]] = {}
        for const in (n for n in graph if n.type == "Const"):
            const_parts[const.name] = sorted({part_of[u.name] for u in const.out_nodes()}) or [0]
            for k, i in enumerate(const_parts[const.name]):
                _adopt(parts[i].graph, const.op_desc, copy=k > 0)   # the merge keeps the first
        ends: dict[str, Node] = {}
        holders: dict[tuple[int, str], Node] = {}
        for node in order + [n for n in graph if n.type == "Const"]:
            for i in const_parts.get(node.name, [part_of.get(node.name, 0)]):
                part = parts[i]
                copy = part.graph.find_node(node.name)
                for anchor in node.in_data_anchors:
                    if anchor.peer is not None:
                        self._link_input(anchor.peer, copy.in_data_anchor(anchor.idx), part,
                                         parts, part_of, ends, holders)
                for pred in node.in_control_nodes():
                    home = const_parts.get(pred.name, [part_of.get(pred.name)])
                    if i in home:
                        GraphUtils.add_edge(part.graph.find_node(pred.name).out_control_anchor,
                                            copy.in_control_anchor)
                    else:
                        parts[home[0]].ctrl_out.append((pred.name, node.name))
        for node in reversed(graph.topological_sort()):
            GraphUtils.remove_node(node)
            node.discard()  # the subgraphs hold its desc, on a node of their own
        return parts

    def _link_input(self, src, dst, part: EngineSubgraph, parts: list[EngineSubgraph],
                    part_of: dict[str, int], ends: dict[str, Node],
                    holders: dict[tuple[int, str], Node]) -> None:
        """Wire ``src`` (an anchor of the original graph) to ``dst`` inside ``part``: directly
        when the producer has a copy there, else through an End / PlaceHolder pair."""
        local = part.graph.find_node(src.owner.name)
        if local is not None:
            GraphUtils.add_edge(local.out_data_anchor(src.idx), dst)
            return
        label = src.label
        if label not in ends:
            home = parts[part_of[src.owner.name]].graph
            ends[label] = home.add_node(self._boundary("End", src, 1, 0))
            GraphUtils.add_edge(home.find_node(src.owner.name).out_data_anchor(src.idx),
                                ends[label].in_data_anchor(0))
        key = (part.index, label)
        if key not in holders:
            holders[key] = part.graph.add_node(self._boundary("PlaceHolder", src, 0, 1))
        GraphUtils.add_edge(holders[key].out_data_anchor(0), dst)

    @staticmethod
    def _boundary(kind: str, src, n_in: int, n_out: int) -> OpDesc:
        op = OpDesc(f"{kind}_{src.owner.name}_{src.idx}", kind, n_in, n_out,
                    {PEER_LABEL: src.label})
        desc = src.owner.op_desc.output_descs[src.idx]
        for d in op.input_descs + op.output_descs:
            d.shape, d.dtype = desc.shape, desc.dtype
        return op

    def merge(self, graph: ComputeGraph, parts: list[EngineSubgraph]) -> None:
        """Rebuild ``graph`` (emptied by partition) from the optimised subgraphs."""
        for part in parts:
            for node in part.graph:
                if node.type in ("PlaceHolder", "End"):
                    continue
                kept = graph.find_node(node.name)
                if kept is None:
                    _adopt(graph, node.op_desc)
                elif node.type != "Const" or kept.op_desc.get_attr(ATTR_NAME_WEIGHTS) \
                        is not node.op_desc.get_attr(ATTR_NAME_WEIGHTS):
                    raise GraphError(f"merge: two subgraphs hold different nodes named "
                                     f"{node.name} ({kept.type}, {node.type})")
        produced: dict[str, tuple[str, int]] = {}
        for part in parts:
            for end in part.graph:
                if end.type == "End":
                    src = end.in_data_anchor(0).peer
                    produced[end.op_desc.get_attr(PEER_LABEL)] = (src.owner.name, src.idx)
        for part in parts:
            for node in part.graph.topological_sort():
                if node.type in ("PlaceHolder", "End"):
                    continue
                copy = graph.find_node(node.name)
                for anchor in node.in_data_anchors:
                    src = anchor.peer
                    if src is None:
                        continue
                    if src.owner.type == "PlaceHolder":
                        name, idx = produced[src.owner.op_desc.get_attr(PEER_LABEL)]
                    else:
                        name, idx = src.owner.name, src.idx
                    GraphUtils.add_edge(graph.find_node(name).out_data_anchor(idx),
                                        copy.in_data_anchor(anchor.idx))
                for pred in node.in_control_nodes():
                    GraphUtils.add_edge(graph.find_node(pred.name).out_control_anchor,
                                        copy.in_control_anchor)
            for src, dst in part.ctrl_out:
                a, b = graph.find_node(src), graph.find_node(dst)
                # An optimiser that deleted either end took the ordering it imposed with it.
                if a is not None and b is not None:
                    GraphUtils.add_edge(a.out_control_anchor, b.in_control_anchor)
