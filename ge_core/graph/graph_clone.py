"""Exact copies of graphs, fast and without recursion (GE's GraphUtils::CloneGraph, for a
debugger's checkpoints).

``clone_graphs`` makes the copies and records each original graph, node, op desc and anchor in a
``copy.deepcopy`` memo, so a deep copy of anything that refers to them (a compile pipeline, its
records, partition lists) shares the clones instead of recursing down anchor chains, which a
ResNet is too deep for. Everything that orders a walk is kept: node insertion order and ``seq``,
each anchor's peer order, the edit counters. Attribute values and tensor descs are shared, as
``OpDesc.clone`` shares them: they are replaced, never mutated in place (a desc is frozen; a
copy sharing them holds 13% fewer objects).

``deep_copy`` copies what refers to the graphs (a compile's state: a walk's lists and dicts of
nodes, its records, the nodes a walk removed but still lists) as ``copy.deepcopy`` does, sharing
the memo, but takes lists, dicts, tuples and plain objects, slotted or not, itself:
copy.deepcopy's generic dispatch (__reduce_ex__, then a copy of the state it returns) costs
microseconds an object, and inside Partition and MergeSubgraph the state besides the graphs
(the walk's order, its maps by node name, thousands of engine subgraphs' fields) took a fifth to
a half of a copy's time.
"""
from __future__ import annotations

import copy
import copyreg
from collections import deque
from typing import Any, Iterable

from ge_core.graph.anchor import InControlAnchor, InDataAnchor, OutControlAnchor, OutDataAnchor
from ge_core.graph.compute_graph import ComputeGraph
from ge_core.graph.ge_tensor import GeShape, GeTensorDesc
from ge_core.graph.journal import JOURNALED, SHARED, fields_of
from ge_core.graph.node import Node
from ge_core.graph.op_desc import OpDesc
from npu_emu.base.trace import TraceBus


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
    elsewhere = [(n, op) for n in nodes if (op := _node_shell(n, memo)) is not None]
    for n, op in elsewhere:   # a desc on another node, once every node has its copy (or on
        memo[id(op)].node = memo.get(id(op.node), memo[id(n)])   # the first that holds it)
    for n in nodes:
        _link(n, memo)
    for g in family.values():
        fields_ = g.fields()
        by_name = fields_.pop("_nodes")
        order = fields_.pop("_order")   # a cache of nodes: mapped, not walked by deepcopy
        new = memo[id(g)]
        for name, value in deep_copy(fields_, memo).items():
            setattr(new, name, value)
        new._nodes = {name: memo[id(n)] for name, n in by_name.items()}
        new._unsorted = g._unsorted   # in its order, sorted or not
        new._jb = 0
        new._order = None if order is None else [memo[id(n)] for n in order]


def _node_shell(n: Node, memo: dict[int, object]) -> OpDesc | None:
    """The copy of ``n`` with its anchors, peers not yet linked, and of its op desc unless a
    node copied before holds the same desc (a node made with the desc of one still in place
    holds it too), and their copies share one likewise (a pass writing through one sees it
    from both; and a copy there holds a sixth fewer objects).
    Returns the desc if it copied it and the desc is on another node (the caller sets its
    copy's ``node`` once that node has its copy)."""
    new = Node.__new__(Node)
    memo[id(n)] = new
    op = n.op_desc
    new_op, elsewhere = memo.get(id(op)), None
    if new_op is None:
        new_op = OpDesc.__new__(OpDesc)
        new_op._jep = new_op._jb = 0   # a copy is journaled by no one yet (graph/journal.py)
        new_op._lists_saved = False
        memo[id(op)] = new_op
        new_op.name, new_op.type = op.name, op.type
        owner = op.node
        new_op.node = new if owner is n else None
        if owner is not n and owner is not None:
            elsewhere = op
        new_op._attrs = {k: memo.get(id(v), v) for k, v in op.attrs.items()}
        new_op.input_descs = list(op.input_descs)   # descs are frozen: shared
        new_op.output_descs = list(op.output_descs)
        new_op.input_names = list(op.input_names)
        new_op.output_names = list(op.output_names)
        new_op.subgraph_names = list(op.subgraph_names)
    new.op_desc, new.graph, new.seq, new._jep, new._jb = new_op, memo[id(n.graph)], n.seq, 0, 0
    new.in_data_anchors = [_anchor(a, InDataAnchor, new, memo) for a in n.in_data_anchors]
    new.out_data_anchors = [_anchor(a, OutDataAnchor, new, memo) for a in n.out_data_anchors]
    new.in_control_anchor = _anchor(n.in_control_anchor, InControlAnchor, new, memo)
    new.out_control_anchor = _anchor(n.out_control_anchor, OutControlAnchor, new, memo)
    return elsewhere


def _anchor(a, cls, owner: Node, memo: dict[int, object]):
    new = cls.__new__(cls)
    new.owner, new.idx, new._jep, new._jb = owner, a.idx, 0, 0
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


_ATOMIC = frozenset({type(None), bool, int, float, complex, str, bytes, range, type,
                     type(Ellipsis), type(NotImplemented), GeShape, GeTensorDesc})
_layouts: dict[type, tuple[bool, tuple[str, ...]] | None] = {}   # see _layout


def _layout(cls: type) -> tuple[bool, tuple[str, ...]] | None:
    """For a class whose instances copy.deepcopy copies as a new instance with a deep copy of
    its state and nothing else (no copy hook of its own, no builtin base): whether it has a
    __dict__, and its slots. None for any other class."""
    if cls in _layouts:
        return _layouts[cls]
    plain = (cls.__reduce_ex__ is object.__reduce_ex__ and cls.__reduce__ is object.__reduce__
             and getattr(cls, "__deepcopy__", None) is None
             and getattr(cls, "__getstate__", None) is object.__getstate__
             and getattr(cls, "__setstate__", None) is None
             and cls.__new__ is object.__new__ and cls not in copyreg.dispatch_table
             and all(b is object or b.__module__ != "builtins" for b in cls.__mro__))
    layout = _layouts[cls] = ("__dict__" in dir(cls),
                              tuple(copyreg._slotnames(cls))) if plain else None
    return layout


def deep_copy(x: object, memo: dict[int, object]) -> object:
    """``copy.deepcopy(x, memo)``, faster on lists, dicts, tuples and plain objects (see
    above); anything else, copy.deepcopy copies. A memo holding ``journal.SHARED`` shares the
    graph's objects instead, and copies a walk's state one level (a journaled checkpoint's
    copy). What it copies must stay alive meanwhile (it is reachable from what the caller
    copies): unlike copy.deepcopy, it keeps nothing alive through the memo, having made no
    temporaries whose ids could be reused."""
    cls = type(x)
    if cls in _ATOMIC:
        return x
    y = memo.get(id(x), memo)
    if y is not memo:
        return y
    if SHARED in memo:   # a journaled checkpoint's copy: the graph's objects are shared
        if cls in JOURNALED:
            return x
        if cls in ONE_LEVEL:
            return shallow_copy(x, memo)
    if cls is list:
        y = memo[id(x)] = []
        y.extend([deep_copy(v, memo) for v in x])
    elif cls is dict:
        y = memo[id(x)] = {}
        y.update([(deep_copy(k, memo), deep_copy(v, memo)) for k, v in x.items()])
    elif cls is tuple:
        items = [deep_copy(v, memo) for v in x]
        y = memo.get(id(x), memo)   # a cycle through an item may have copied it already
        if y is memo:
            y = x if all(a is b for a, b in zip(items, x)) else tuple(items)
            memo[id(x)] = y
    elif (layout := _layout(cls)) is not None:
        y = memo[id(x)] = cls.__new__(cls)
        has_dict, slots = layout
        if has_dict:
            y.__dict__.update(deep_copy(x.__dict__, memo))
        for name in slots:   # a slot never set stays unset, as copy.deepcopy leaves it
            value = getattr(x, name, _UNSET)
            if value is not _UNSET:
                setattr(y, name, deep_copy(value, memo))
    else:
        y = copy.deepcopy(x, memo)
    return y


_UNSET = object()
ITEMS = "graph_clone.items"   # a SHARED memo counts under this key the items copied one level
ONE_LEVEL: set[type] = set()   # see copied_one_level
_CONTAINERS = (list, dict, set, deque)


def copied_one_level(cls: type) -> type:
    """Class decorator for a walk's state (Partition's, the merge's): in a copy that shares
    the graph (SHARED), ``shallow_copy`` copies it; otherwise, as any plain object."""
    ONE_LEVEL.add(cls)
    return cls


def shallow_copy(obj: Any, memo: dict, deep: tuple[str, ...] = (),
                 shared: tuple[str, ...] = ()) -> Any:
    """A walk's state in a copy that shares the graph (SHARED): ``obj`` with its lists, dicts,
    sets and deques copied one level, through the memo (two fields holding one list hold one
    copy), their items shared (nodes, names, numbers, and lists the walk never changes in
    place); the fields in ``deep`` copied deeply, those in ``shared`` not at all (the caller
    sees to them). A walk's state is a few containers of thousands of nodes: a copy item by
    item cost 40-60 ms at 20k nodes."""
    new = copy.copy(obj)
    memo[id(obj)] = new
    for name in fields_of(new):
        value = getattr(new, name)
        if name in deep:
            setattr(new, name, deep_copy(value, memo))
        elif name in shared:
            continue
        elif isinstance(value, _CONTAINERS):
            twin = memo.get(id(value))
            if twin is None:
                twin = memo[id(value)] = copy.copy(value)
                memo[ITEMS] = memo.get(ITEMS, 0) + len(value)
            setattr(new, name, twin)
    return new

