"""Exact copies of graphs, fast and without recursion (GE's GraphUtils::CloneGraph, for a
debugger's checkpoints).

``clone_graphs`` makes the copies and records each original graph, node, op desc and anchor in a
``copy.deepcopy`` memo, so a deep copy of anything that refers to them (a compile pipeline, its
records, partition lists) shares the clones instead of recursing down anchor chains, which a
ResNet is too deep for. Everything that orders a walk is kept: node insertion order and ``seq``,
each anchor's peer order, the edit counters. Attribute values are shared, as ``OpDesc.clone``
shares them: they are replaced, never mutated in place.
"""
from __future__ import annotations

import copy
from dataclasses import fields
from operator import attrgetter
from typing import Iterable

from ge_core.graph.anchor import InControlAnchor, InDataAnchor, OutControlAnchor, OutDataAnchor
from ge_core.graph.compute_graph import ComputeGraph
from ge_core.graph.ge_tensor import GeTensorDesc
from ge_core.graph.node import Node
from ge_core.graph.op_desc import OpDesc
from npu_emu.base.trace import TraceBus


# GeTensorDesc's fields in order: its constructor is 4x faster than dataclasses.replace
_desc_fields = attrgetter(*(f.name for f in fields(GeTensorDesc)))


def _copy_desc(d: GeTensorDesc) -> GeTensorDesc:
    return GeTensorDesc(*_desc_fields(d))


def clone_graphs(graphs: Iterable[ComputeGraph], bus: TraceBus, memo: dict[int, object]) -> None:
    """Clone ``graphs`` and the subgraphs they own onto ``bus``; ``memo[id(x)]`` is x's clone."""
    family: dict[int, ComputeGraph] = {}
    for g in graphs:
        for member in [g, *g.subgraphs]:
            family.setdefault(id(member), member)
    for g in family.values():
        memo[id(g.bus)] = bus
        memo[id(g)] = ComputeGraph.__new__(ComputeGraph)
        if id(g.edits) not in memo:   # shared by a root and its subgraphs, so copied once
            memo[id(g.edits)] = g.edits.snapshot()
    nodes = [n for g in family.values() for n in g.nodes]
    made = [_node_shell(n, memo) for n in nodes]
    for n, op in zip(nodes, made):   # a desc's node, once every node has its copy
        if op is not None:   # (one outside these graphs: the first copy that holds the desc)
            owner = op.node
            memo[id(op)].node = None if owner is None else memo.get(id(owner), memo[id(n)])
    for n in nodes:
        _link(n, memo)
    for g in family.values():
        fields_ = dict(g.__dict__)
        by_name = fields_.pop("_nodes")
        order = fields_.pop("_order")   # a cache of nodes: mapped, not walked by deepcopy
        new = memo[id(g)]
        new.__dict__.update(copy.deepcopy(fields_, memo))
        new._nodes = {name: memo[id(n)] for name, n in by_name.items()}
        new._order = None if order is None else [memo[id(n)] for n in order]


def _node_shell(n: Node, memo: dict[int, object]) -> OpDesc | None:
    """The copy of ``n`` with its anchors, peers not yet linked, and of its op desc unless a
    node copied before holds the same desc: Partition moves a desc onto the node that adopts it
    while the original node keeps it until removed, and their copies share one likewise (half
    the objects of a copy inside Partition, and a pass writing through one sees it from both).
    Returns the desc when it made its copy (whose ``node`` the caller sets)."""
    new = Node.__new__(Node)
    memo[id(n)] = new
    op = n.op_desc
    new_op, made = memo.get(id(op)), None
    if new_op is None:
        new_op, made = OpDesc.__new__(OpDesc), op
        memo[id(op)] = new_op
        new_op.name, new_op.type = op.name, op.type
        new_op._attrs = {k: memo.get(id(v), v) for k, v in op.attrs.items()}
        new_op.input_descs = [_copy_desc(d) for d in op.input_descs]
        new_op.output_descs = [_copy_desc(d) for d in op.output_descs]
        new_op.input_names = list(op.input_names)
        new_op.output_names = list(op.output_names)
        new_op.subgraph_names = list(op.subgraph_names)
    new.op_desc, new.graph, new.seq = new_op, memo[id(n.graph)], n.seq
    new.in_data_anchors = [_anchor(a, InDataAnchor, new, memo) for a in n.in_data_anchors]
    new.out_data_anchors = [_anchor(a, OutDataAnchor, new, memo) for a in n.out_data_anchors]
    new.in_control_anchor = _anchor(n.in_control_anchor, InControlAnchor, new, memo)
    new.out_control_anchor = _anchor(n.out_control_anchor, OutControlAnchor, new, memo)
    return made


def _anchor(a, cls, owner: Node, memo: dict[int, object]):
    new = cls.__new__(cls)
    new.owner, new.idx = owner, a.idx
    memo[id(a)] = new
    return new


def _link(n: Node, memo: dict[int, object]) -> None:
    new: Node = memo[id(n)]
    for a, b in zip(n.in_data_anchors, new.in_data_anchors):
        b.peer = None if a.peer is None else memo[id(a.peer)]
    for a, b in zip(n.out_data_anchors, new.out_data_anchors):
        b.peers = [memo[id(p)] for p in a.peers]
    new.in_control_anchor.peers = [memo[id(p)] for p in n.in_control_anchor.peers]
    new.out_control_anchor.peers = [memo[id(p)] for p in n.out_control_anchor.peers]
