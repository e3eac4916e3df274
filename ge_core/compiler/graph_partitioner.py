"""GraphPartitioner: cut the graph into per-engine subgraphs and merge them back (GE's
EnginePartitioner / GraphPartitioner).

Each subgraph holds a run of same-engine nodes; a tensor crossing a cut leaves its producer's
subgraph through an End node and enters each consumer's subgraph through a PlaceHolder, both
tagged with the crossing tensor's original label, so the merge can rejoin them even after an
engine's optimiser rewrote the producer. Runs come from a topological order that keeps the
current engine while it can: a cut of a topological order can never form a cycle. Constants
do not split runs: each is copied into every subgraph that reads it, so an engine's optimiser
sees its weights as constants (Conv+BN folding needs that); the merge keeps one copy.

Nodes move between the graphs as they are, edges and all: only the edges across a cut are cut,
and mended by the merge. GE's merge moves its NodePtrs so (EnginePartitioner::MergeAllSubGraph:
SetOwnerComputeGraph, then AddNode of the node). Its partition instead adds to each subgraph a
node per node holding the same op desc (SplitSubGraphs: AddNode(node->GetOpDesc())), linked
again, and drops the original graph whole; the subgraphs hold the same names and descs either
way. Moving spares making and linking every node anew and unlinking the original edge by edge
(Partition took a quarter to a half less time on the light models: ShuffleNet 26%,
Inception-v2 49%).
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Iterator

from ge_core.graph import ComputeGraph, GeTensorDesc, GraphError, GraphUtils, Node, OpDesc
from ge_core.graph.attr_names import ATTR_NAME_WEIGHTS, ENGINE, PEER_LABEL
from ge_core.graph.graph_clone import copied_one_level
from ge_core.graph.journal import journaled, stamp, touch
from ge_core.passes.graph_pass import POSITION_NODES


@journaled   # a debugger's checkpoints share the thousands a big graph is cut into
@dataclass
class EngineSubgraph:
    index: int
    engine: str
    graph: ComputeGraph
    ctrl_out: list[tuple[str, str]] = field(default_factory=list)  # cross-cut control edges
    _jep: int = field(default_factory=stamp, init=False, repr=False, compare=False)
    _jb: int = field(default_factory=stamp, init=False, repr=False, compare=False)

    def add_ctrl_out(self, edge: tuple[str, str]) -> None:
        touch(self)
        self.ctrl_out.append(edge)

    # the journal's (graph/journal.py): the control edges are all that changes once it is made
    def _saved(self) -> list[tuple[str, str]]:
        return list(self.ctrl_out)

    def _restore(self, state: list[tuple[str, str]]) -> None:
        self.ctrl_out = state


def engine_of(node: Node) -> str:
    return node.op_desc.get_attr(ENGINE, "")


def engine_grouped_order(graph: ComputeGraph) -> list[Node]:
    """Kahn's order of the non-Const nodes that stays on the current engine while it can. The
    heaps hold (seq, node): seqs are unique in a graph, so a node is never compared."""
    nodes = [n for n in graph if n.type != "Const"]
    pending: dict[Node, int] = {}
    ready: dict[str, list] = {}
    push, pop = heapq.heappush, heapq.heappop
    for n in nodes:
        count = 0
        for p in n.in_nodes():
            if p.type != "Const":
                count += 1
        pending[n] = count
        if not count:
            push(ready.setdefault(engine_of(n), []), (n.seq, n))
    order: list[Node] = []
    current = ""
    left = sum(map(len, ready.values()))   # nodes in the heaps
    while left:
        heap = ready.get(current)
        if not heap:
            current = min((h[0][0], e) for e, h in ready.items() if h)[1]
            heap = ready[current]
        node = pop(heap)[1]
        left -= 1
        order.append(node)
        for succ in node.out_nodes():
            count = pending[succ] = pending[succ] - 1
            if not count:
                push(ready.setdefault(engine_of(succ), []), (succ.seq, succ))
                left += 1
    if len(order) != len(nodes):
        graph.topological_sort()  # raises, naming a node on the cycle
    return order


def _copy_into(graph: ComputeGraph, op_desc: OpDesc) -> Node:
    """A clone of ``op_desc`` placed in ``graph`` (a constant's second home); bodies it owns
    follow it."""
    node = graph.add_node(op_desc.clone())
    for name in node.op_desc.subgraph_names:
        graph.subgraph(name).set_parent(node, graph)
    return node


class GraphPartitioner:
    def partition(self, graph: ComputeGraph) -> list[EngineSubgraph]:
        cut = Partitioning(graph)
        for _ in cut.steps():
            pass
        return cut.parts

    def merge(self, graph: ComputeGraph, parts: list[EngineSubgraph]) -> None:
        """Move the optimised subgraphs' nodes back into ``graph`` (emptied by partition)."""
        for _ in Merging(graph, parts).steps():
            pass


@copied_one_level   # its lists and dicts hold nodes, engine subgraphs, names, numbers, and
class Partitioning:  # lists of numbers it never changes once stored
    """One partition of a graph as a resumable walk: ``steps()`` yields every POSITION_NODES
    nodes, and between two yields its whole state is its attributes, so a copy taken there
    resumes with ``steps()`` to the same graphs and the same trace (a debugger's checkpoint
    inside the stage: at 40k nodes the stage alone is ~200k ticks). Each node moves, edges and
    all, into its subgraph (ComputeGraph.move_node; see above); then each edge that crosses a
    cut is cut. ``parts`` grows as they are made; the original graph is empty at the end."""

    def __init__(self, graph: ComputeGraph) -> None:
        self.graph = graph
        self.order = engine_grouped_order(graph)
        self.consts = [n for n in graph if n.type == "Const"]
        self.part_of: dict[str, int] = {}
        self.parts: list[EngineSubgraph] = []
        self.const_parts: dict[str, list[int]] = {}
        self.ends: dict[str, Node] = {}
        self.holders: dict[tuple[int, str], Node] = {}
        self.loop = 0   # which of the three loops below is under way
        self.done = 0   # the items of that loop done
        self.begun = False   # past the position right after the constructor's reads

    def steps(self) -> Iterator[None]:
        if not self.begun:
            # the constructor read every node (their engine-grouped order, the constants): ~100
            # ms at 40k nodes, in no tick; counted as work, with a position after it, so a
            # checkpoint may follow it and a step back to the first nodes need not read again
            self.begun = True
            self.graph.bus.work += len(self.graph)
            yield
        loops = [(lambda: self.order, self._move),
                 (self._const_copies, self._place_const),
                 (lambda: self.order + self.consts, self._cut)]
        while self.loop < len(loops):
            items, each = loops[self.loop]
            items = items()
            while self.done < len(items):
                each(items[self.done])
                self.done += 1
                if self.done % POSITION_NODES == 0:
                    yield
            self.loop, self.done = self.loop + 1, 0

    def _move(self, node: Node) -> None:
        parts = self.parts
        if not parts or parts[-1].engine != engine_of(node):
            graph = self.graph
            sub = ComputeGraph(f"{graph.name}_{len(parts)}_{engine_of(node) or 'none'}",
                               graph.bus, graph.attrs)
            sub.share_subgraphs_of(graph)
            parts.append(EngineSubgraph(len(parts), engine_of(node), sub))
        self.part_of[node.name] = len(parts) - 1
        self.graph.move_node(node, parts[-1].graph)

    def _const_copies(self) -> list[tuple[Node, list[int], int]]:
        """Each constant's homes: (it, the subgraphs that read it, which home). A constant
        moves into the first subgraph that reads it and is copied into every other (the merge
        keeps the first), so each engine's optimiser sees its weights as constants even when
        layers share them. A home is an item of its own: a shape constant read in 5000
        subgraphs was 5000 nodes between positions. Made again when a copy taken inside the
        loop resumes: no edge has been cut by then, so its readers are where they were."""
        copies = []
        for const in self.consts:
            # its readers' subgraphs (a constant it orders, by a control edge, has none)
            homes = sorted({self.part_of[u.name] for u in const.out_nodes()
                            if u.name in self.part_of}) or [0]
            copies += [(const, homes, k) for k in range(len(homes))]
        return copies

    def _place_const(self, copy: tuple[Node, list[int], int]) -> None:
        const, homes, k = copy
        if k == 0:
            self.const_parts[const.name] = homes
            self.graph.move_node(const, self.parts[homes[0]].graph)
        else:
            _copy_into(self.parts[homes[k]].graph, const.op_desc)

    def _cut(self, node: Node) -> None:
        """Cut the edges into ``node`` that cross into its subgraph. A constant's copies take
        its control inputs first, from the original's edges, which are cut after."""
        homes = self.const_parts.get(node.name) or [self.part_of.get(node.name, 0)]
        for i in homes[1:]:
            copy = self.parts[i].graph.find_node(node.name)
            for pred in node.in_control_nodes():
                self._order_after(pred, copy, i)
        part = self.parts[homes[0]]
        for anchor in node.in_data_anchors:
            src = anchor.peer
            if src is not None and src.owner.graph is not part.graph:
                src.unlink(anchor)
                self._link_input(src, anchor, part)
        for pred in node.in_control_nodes():
            if pred.graph is not part.graph:
                pred.out_control_anchor.unlink(node.in_control_anchor)
                self._order_after(pred, node, homes[0])

    def _order_after(self, pred: Node, node: Node, i: int) -> None:
        """``node``, in subgraph ``i``, comes after ``pred``: by an edge from ``pred``'s copy
        there, else by one across the cut, which the merge links."""
        home = self.const_parts.get(pred.name, [self.part_of.get(pred.name)])
        if i in home:
            GraphUtils.add_edge(self.parts[i].graph.find_node(pred.name).out_control_anchor,
                                node.in_control_anchor)
        else:
            self.parts[home[0]].add_ctrl_out((pred.name, node.name))

    def _link_input(self, src, dst, part: EngineSubgraph) -> None:
        """Wire ``src`` (an output outside ``part``) to ``dst`` inside it: from the producer's
        copy there (a constant's), else through an End / PlaceHolder pair."""
        ends, holders = self.ends, self.holders
        local = part.graph.find_node(src.owner.name)
        if local is not None:
            GraphUtils.add_edge(local.out_data_anchor(src.idx), dst)
            return
        label = src.label
        if label not in ends:
            ends[label] = src.owner.graph.add_node(self._boundary("End", src, 1, 0))
            GraphUtils.add_edge(src, ends[label].in_data_anchor(0))
        key = (part.index, label)
        if key not in holders:
            holders[key] = part.graph.add_node(self._boundary("PlaceHolder", src, 0, 1))
        GraphUtils.add_edge(holders[key].out_data_anchor(0), dst)

    @staticmethod
    def _boundary(kind: str, src, n_in: int, n_out: int) -> OpDesc:
        op = OpDesc(f"{kind}_{src.owner.name}_{src.idx}", kind, n_in, n_out,
                    {PEER_LABEL: src.label})
        desc = src.owner.op_desc.output_descs[src.idx]
        for i in range(n_in):
            op.update_input_desc(i, GeTensorDesc(desc.shape, desc.dtype))
        for i in range(n_out):
            op.update_output_desc(i, GeTensorDesc(desc.shape, desc.dtype))
        return op


@copied_one_level
class Merging:
    """One merge of the optimised subgraphs back into the graph partition emptied, resumable like
    Partitioning: ``steps()`` yields every POSITION_NODES nodes walked, counted across the
    parts and both loops. Each node moves back edges and all; then what the cut put in its
    place is undone: a PlaceHolder's readers read what its End read, a constant's copy's read
    the constant, and the boundary nodes and copies are left behind, isolated, in the
    subgraphs."""

    def __init__(self, graph: ComputeGraph, parts: list[EngineSubgraph]) -> None:
        self.graph = graph
        self.parts = parts
        self.produced: dict[str, tuple[str, int]] = {}   # an End's label: what feeds it
        self.loop = 0   # 0: moving the parts' nodes back, 1: mending the cuts
        self.part = 0   # the part under way
        self.nodes: list[Node] | None = None   # its nodes, in the loop's order
        self.done = 0   # of them, those done
        self.walked = 0   # nodes done in all: the positions are this many nodes apart, however
                          # small the parts

    def steps(self) -> Iterator[None]:
        each = (self._move, self._mend)
        while self.loop < 2:
            while self.part < len(self.parts):
                part = self.parts[self.part]
                if self.nodes is None:
                    self.nodes = list(part.graph)
                while self.done < len(self.nodes):
                    each[self.loop](self.nodes[self.done])
                    self.done += 1
                    self.walked += 1
                    if self.walked % POSITION_NODES == 0:
                        yield
                if self.loop == 1:
                    self._link_control(part)
                self.part, self.nodes, self.done = self.part + 1, None, 0
            if self.loop == 0:
                self.produced = _produced(self.parts)
            self.loop, self.part = self.loop + 1, 0

    def _move(self, node: Node) -> None:
        if node.type in ("PlaceHolder", "End"):
            return
        kept = self.graph.find_node(node.name)
        if kept is None:
            node.graph.move_node(node, self.graph)
        elif node.type != "Const" or kept.op_desc.get_attr(ATTR_NAME_WEIGHTS) \
                is not node.op_desc.get_attr(ATTR_NAME_WEIGHTS):
            raise GraphError(f"merge: two subgraphs hold different nodes named "
                             f"{node.name} ({kept.type}, {node.type})")

    def _mend(self, node: Node) -> None:
        """``node`` is what stayed in a subgraph: a boundary node or a constant's copy."""
        graph = self.graph
        if node.type == "End":
            src = node.in_data_anchor(0).peer
            if src is not None:
                src.unlink(node.in_data_anchor(0))
            return
        if node.type == "PlaceHolder":
            name, idx = self.produced[node.op_desc.get_attr(PEER_LABEL)]
            sources = [graph.find_node(name).out_data_anchor(idx)]
        else:   # a copy: its readers read the constant kept
            kept = graph.find_node(node.name)
            sources = kept.out_data_anchors
            # by name: the other end may be a copy too (of a constant ordered after another)
            for pred in node.in_control_nodes():
                pred.out_control_anchor.unlink(node.in_control_anchor)
                GraphUtils.add_edge(graph.find_node(pred.name).out_control_anchor,
                                    kept.in_control_anchor)
            for reader in node.out_control_nodes():
                node.out_control_anchor.unlink(reader.in_control_anchor)
                GraphUtils.add_edge(kept.out_control_anchor,
                                    graph.find_node(reader.name).in_control_anchor)
        for out, src in zip(node.out_data_anchors, sources):
            for dst in list(out.peers):
                out.unlink(dst)
                GraphUtils.add_edge(src, dst)

    def _link_control(self, part: EngineSubgraph) -> None:
        graph = self.graph
        for src, dst in part.ctrl_out:
            a, b = graph.find_node(src), graph.find_node(dst)
            # An optimiser that deleted either end took the ordering it imposed with it.
            if a is not None and b is not None:
                GraphUtils.add_edge(a.out_control_anchor, b.in_control_anchor)


def _produced(parts: list[EngineSubgraph]) -> dict[str, tuple[str, int]]:
    produced: dict[str, tuple[str, int]] = {}
    for part in parts:
        for end in part.graph:
            if end.type == "End":
                src = end.in_data_anchor(0).peer
                produced[end.op_desc.get_attr(PEER_LABEL)] = (src.owner.name, src.idx)
    return produced
