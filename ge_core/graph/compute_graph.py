"""ComputeGraph: GE's graph. Owns its nodes; the root graph also owns every subgraph."""
from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import dataclass, field, fields
from itertools import compress
from operator import attrgetter, sub
from typing import Container, Iterator

from ge_core.graph.anchor import Anchor, GraphError
from ge_core.graph.attr_names import ATTR_NAME_INDEX
from ge_core.graph.events import (AnchorLinked, AnchorUnlinked, GraphAttrSet, NodeAdded,
                                  NodeRemoved, short_repr)
from ge_core.graph.journal import journaled, logged, stamp, touch
from ge_core.graph.node import Node
from ge_core.graph.op_desc import OpDesc
from npu_emu.base.trace import TraceBus
from npu_emu.world import current_bus

DATA_TYPES = frozenset({"Data", "RefData"})
_OP_TYPE = attrgetter("op_desc.type")   # a node's type, read in C
NETOUTPUT = "NetOutput"
# GE-local ops whose output 0 is their input 0 (hicann/ge compiler/engines/local_engine/:
# "output reuses input"): views, which launch nothing and own no memory.
ALIAS_OPS = frozenset({"Reshape", "Squeeze", "Unsqueeze", "ExpandDims", "Flatten", "Identity"})


EDGES = ":edges"   # EditCounts.touched's key for an edge edit (no attr key starts with ':')


class InputLogs(list):
    """The logs of the GEPass walks open on a graph (passes/ge_pass.py): each a list, in order,
    of the nodes whose inputs changed, by an edge edit (a link's or an unlink's consumer) or an
    input desc written (OpDesc.update_input_desc). A walk's state, not the graph's: a copy of
    the graph starts with none open, and a rewind leaves them."""
    __slots__ = ()

    def __deepcopy__(self, memo: dict) -> "InputLogs":
        return InputLogs()

    def open(self) -> "InputLog":
        log = InputLog()
        self.append(log)
        return log

    def close(self, log: list[Node]) -> None:
        """Drop ``log`` itself (two open logs may hold the same nodes: list.remove asks ==)."""
        for i, open_log in enumerate(self):
            if open_log is log:
                del self[i]
                return


# readers a node must have for a mark by an InputLog to pay: fewer cost less to ask again
MARKED_READERS = 8


class InputLog(list):
    """One walk's log (InputLogs), and what is kept by its positions, so that it goes with the
    walk (a checkpoint's copy sets out with a new one): per node of MARKED_READERS or more,
    how long the log was when the walk last asked all its successors whether they were ready,
    and how many they were (``asked``, passes/ge_pass.py); and when InferShapePass last pushed
    its output descs to its readers, those descs, and how many readers (``pushed``,
    passes/infer_shape_pass.py)."""
    __slots__ = ("asked", "pushed")

    def __init__(self) -> None:
        super().__init__()
        self.asked: dict[Node, tuple[int, int]] = {}
        self.pushed: dict[Node, tuple[int, tuple, int]] = {}


class ReplacedTable(tuple):
    """A logged change that put a new node table in place of ``self[1]`` (a reorder's, a
    discard's): the one kind of logged change that holds a whole table, sized on its own
    (debugger/checkpoint.py)."""


@journaled
@dataclass(slots=True)
class EditCounts:
    """Running totals of edits to a root graph and its subgraphs; a pass's effect is the
    difference across it (no observer needed, so it costs an increment per edit)."""
    nodes_added: int = 0
    nodes_removed: int = 0
    edges_linked: int = 0
    edges_unlinked: int = 0
    attrs_set: int = 0
    descs_updated: int = 0   # input and output tensor descs changed (OpDesc.update_*_desc)
    graph_attrs_set: int = 0   # attributes of the graphs themselves (ComputeGraph.set_attr)
    total: int = 0   # every edit above, once: what a GEPass compares across each node pass
    types: Counter = field(default_factory=Counter)  # op type -> added minus removed
    # While watched (watch()): each node an edit touched -> the attr keys set on it, EDGES for a
    # link or unlink at either end, DESCS and TYPE (op_desc.py) for a desc updated and a type
    # set. None otherwise, so an unwatched edit costs one test.
    touched: dict[Node, set[str]] | None = None
    input_logs: InputLogs = field(default_factory=InputLogs, repr=False, compare=False)
    _jep: int = field(default_factory=stamp, repr=False, compare=False)   # graph/journal.py
    _jb: int = field(default_factory=stamp, repr=False, compare=False)

    # the journal's: every count and note below is written after a touch (the watcher holds
    # ``touched`` too, so it is put back in place)
    def _saved(self) -> tuple:
        touched = self.touched
        return (edit_totals(self), Counter(self.types), touched,
                None if touched is None else {n: set(keys) for n, keys in touched.items()})

    def _restore(self, s: tuple) -> None:
        for name, value in zip(_TOTALS, s[0]):
            setattr(self, name, value)
        self.types, self.touched = s[1], s[2]
        if s[2] is not None:
            s[2].clear()
            s[2].update({n: set(keys) for n, keys in s[3].items()})


    def watch(self) -> dict[Node, set[str]]:
        """Start noting which nodes edits touch, into the dict returned (until unwatch()). One
        watcher at a time: a second would blind the first when it stops."""
        if self.touched is not None:
            raise GraphError("the graph's edits are already watched")
        touch(self)
        self.touched = {}
        return self.touched

    def unwatch(self) -> None:
        touch(self)
        self.touched = None

    def node_added(self, op_type: str) -> None:
        touch(self)
        self.nodes_added += 1
        self.total += 1
        self.types[op_type] += 1

    def node_removed(self, op_type: str) -> None:
        touch(self)
        self.nodes_removed += 1
        self.total += 1
        self.types[op_type] -= 1

    def note_edge(self, *nodes: Node) -> None:
        for node in nodes:
            self.note(node, EDGES)

    def note(self, node: Node, what: str) -> None:
        """While watched: ``node`` had attribute ``what`` set (or an edge edit: EDGES; a desc
        updated: DESCS)."""
        self.touched.setdefault(node, set()).add(what)

    def snapshot(self) -> "EditCounts":
        return EditCounts(*edit_totals(self), Counter(self.types))

    def since(self, before: "EditCounts") -> "EditCounts":
        # the nonzero differences, in Counter.subtract's key order, without its copies: a pass
        # record takes one, and a graph cut into thousands of engine subgraphs makes thousands
        now, then = self.types, before.types
        types = Counter()
        for t, n in now.items():
            if n != then.get(t, 0):
                types[t] = n - then.get(t, 0)
        for t, n in then.items():
            if n and t not in now:
                types[t] = -n
        return EditCounts(*map(sub, edit_totals(self), edit_totals(before)), types)

    @property
    def any(self) -> bool:
        """Whether anything was edited: a desc updated too, so a pass that only fills in
        descs (InferShape on the nodes a pass made) has changed the graph, and says so."""
        return any(edit_totals(self))


# Each kind of edit's running total, in EditCounts' field order: read by one C getter (a GEPass
# reads them twice a node pass: 190k calls at 20k nodes)
_TOTALS = tuple(f.name for f in fields(EditCounts)
                if f.name not in ("types", "touched", "input_logs", "_jep", "_jb"))
edit_totals = attrgetter(*_TOTALS)


def _linked(node: Node) -> bool:
    """Whether a data anchor of ``node`` has a peer (loops, not any() over generators: every
    removal asks)."""
    for a in node.in_data_anchors:
        if a.peer is not None:
            return True
    for a in node.out_data_anchors:
        if a.peers:
            return True
    return False


@journaled
class ComputeGraph:
    # Slots: every edit and every node pass reads them (a graph's first save in each epoch
    # reads its fields: with a __dict__, CPython then keeps them in a real dict, dearer to read)
    _FIELDS = ("name", "bus", "edits", "_nodes", "_seq", "_order", "parent_node",
               "parent_graph", "_subgraphs", "_attrs", "_jep")
    # _jb: its birth, never saved; _unsorted: the live table's state, not a saved one (_table)
    __slots__ = (*_FIELDS, "_jb", "_unsorted", "__weakref__")

    def __init__(self, name: str, bus: TraceBus | None = None,
                 attrs: dict[str, object] | None = None) -> None:
        """``attrs``: what the graph is made with (a parsed model's opset and source, an OM
        file's graph attributes), no edit; a change after goes through set_attr."""
        self.name = name
        self.bus = bus or current_bus()
        self.edits = EditCounts()
        self._nodes: dict[str, Node] = {}
        self._unsorted = False
        self._seq = 0
        self._order: list[Node] | None = None  # topological_sort's, until the next edit
        self.parent_node: Node | None = None
        self.parent_graph: ComputeGraph | None = None
        self._subgraphs: dict[str, ComputeGraph] = {}  # only on the root graph
        self._attrs: dict[str, object] = dict(attrs or {})
        self._jep = self._jb = stamp(self)   # graph/journal.py

    def fields(self) -> dict[str, object]:
        """Every attribute, by name (a copy's, the journal's)."""
        return {name: getattr(self, name) for name in ComputeGraph._FIELDS}

    # -- the journal's (graph/journal.py): every write below touches first ----------------------
    # ``_subgraphs`` is put back in place: a partition's graph shares the root's dict. The node
    # table is logged change by change instead (journal.logged): saved whole, the root's would
    # be copied at the first edge edit after every mark. The cached order is kept as it is (a
    # list an edit replaces, never changes): a re-run after a rewind need not sort again.
    def _saved(self) -> tuple:
        fields_ = self.fields()
        del fields_["_jep"], fields_["_nodes"]
        fields_["_attrs"] = dict(self._attrs)
        return fields_, dict(self._subgraphs)

    def _whole(self) -> tuple:
        fields_, subgraphs = self._saved()
        fields_["_nodes"] = dict(self._nodes)
        return fields_, subgraphs

    def _restore(self, s: tuple) -> None:
        if s[0].__class__ is not dict:   # a logged change of the node table: (undo, args...)
            s[0](self, *s[1:])
            return
        fields_, subgraphs = s
        if "_nodes" in fields_:   # _whole's, the present's, after a kept rewind (a redo): a node
            # the rewind put back and that is gone now has the cycles its removal broke, unless
            # it moved to another graph (move_node), where it lives on: the redo restores the
            # graphs after the nodes (Journal.rewind), so a moved node's graph is its present's
            for name in self._nodes.keys() - fields_["_nodes"].keys():
                node = self._nodes[name]
                if node.graph is self:
                    node.break_cycles()
            self._unsorted = True   # the present's table may be out of order
        for name, value in fields_.items():   # all but _jep, and _nodes unless _whole's
            setattr(self, name, value)
        self._subgraphs.clear()
        self._subgraphs.update(subgraphs)

    # Each drops the cached order: a graph made since the mark has no saved state to do it.
    def _unadd(self, name: str) -> None:
        del self._nodes[name]
        self._order = None

    @staticmethod
    def removed_node(state: object) -> Node | None:
        """The node a journal entry's logged removal holds (None for any other entry): what
        the journal alone keeps alive of it (checkpoint memory)."""
        if state.__class__ is tuple and state and state[0] is ComputeGraph._unremove:
            return state[2]
        return None

    def _unremove(self, name: str, node: Node, owned: bool) -> None:
        self._nodes[name] = node   # at the end: back in its place when next read in order
        node.mend(owned)   # the cycles its removal broke, unsaved (remove_node)
        self._order = None
        self._unsorted = True

    def _unreplace(self, nodes: dict[str, Node]) -> None:
        # a copy: a kept rewind (Journal.rewind's keep) leaves ``nodes`` in the log it redoes,
        # and the undos of older changes write to the table in force
        self._nodes, self._order = dict(nodes), None
        self._unsorted = True   # a removal undone before it was redone may have left it so

    def _table(self) -> dict[str, Node]:
        """The node table in insertion order, which is ``seq`` order (reorder renumbers). A
        rewind that puts removed nodes back leaves them at its end, and the first read that
        cares for the order sorts it: sorting the root's 40k nodes at each rewind took 12 ms
        of every step back over a stretch that removed one, most of which never read it."""
        if self._unsorted:
            self._unsorted = False
            seqs = [n.seq for n in self._nodes.values()]
            if any(a > b for a, b in zip(seqs, seqs[1:])):
                # sorted by index, not as (name, node) items: making the items was most of
                # the time
                names, nodes = list(self._nodes), list(self._nodes.values())
                order = sorted(range(len(seqs)), key=seqs.__getitem__)
                self._nodes = dict(zip(map(names.__getitem__, order),
                                       map(nodes.__getitem__, order)))
        return self._nodes

    def _unborn(self) -> None:   # its nodes are born after it: each is rewound on its own
        self._nodes, self._order, self._unsorted = {}, None, False


    # -- the graph's own attributes (GE's AttrHolder on a ComputeGraph) ------------------------
    @property
    def attrs(self) -> dict[str, object]:
        """Read-only view by convention: write through set_attr and del_attr, so that the
        change is a trace event, as a node's attribute set is (OpDesc.set_attr)."""
        return self._attrs

    def set_attr(self, key: str, value: object) -> None:
        """Set ``key``; setting the value it has is no edit (the stream split sets the model's
        counts again after stream allocation: `stream_num old=2 new=2` was an event)."""
        old = self._attrs.get(key)
        if key in self._attrs and _same(old, value):
            return
        touch(self)
        self._attrs[key] = value
        self._attr_edited(key, old, value)

    def del_attr(self, key: str) -> None:
        """Remove ``key`` if set (an event whose new value is None, as OpDesc.del_attr's)."""
        if key in self._attrs:
            touch(self)
            self._attr_edited(key, self._attrs.pop(key), None)

    def _attr_edited(self, key: str, old: object, new: object) -> None:
        touch(self.edits)
        self.edits.graph_attrs_set += 1
        self.edits.total += 1
        if self.bus.observed:
            self.bus.emit(GraphAttrSet, self.name, key, short_repr(old), short_repr(new))

    # -- nodes --------------------------------------------------------------------------------
    def add_node(self, op_desc: OpDesc) -> Node:
        if op_desc.name in self._nodes:
            raise GraphError(f"graph {self.name}: node name {op_desc.name!r} already exists")
        touch(self)
        node = Node(op_desc, self, self._seq)
        self._seq += 1
        self._nodes[op_desc.name] = node
        logged(self, (ComputeGraph._unadd, op_desc.name))
        self._order = None
        self.edits.node_added(op_desc.type)
        if self.bus.observed:
            self.bus.emit(NodeAdded, self.name, op_desc.name, op_desc.type)
        return node

    def remove_node(self, node: Node) -> None:
        """Drop an isolated node (GraphUtils.remove_node unlinks it first). Its own cycles (its
        anchors' and desc's links back to it) are broken too: reference counting frees it as soon
        as its last reader lets go, where a compile's removed nodes would otherwise be garbage
        for the cyclic collector to scan and sweep when the compile's pause ends. Its desc keeps
        its attributes and tensor descs, for whoever adopts it; the node itself is dead (its
        anchors have no owner)."""
        if self._nodes.get(node.name) is not node:
            raise GraphError(f"graph {self.name}: node {node.name} is not in this graph")
        if node.in_control_anchor.peers or node.out_control_anchor.peers or _linked(node):
            raise GraphError(f"graph {self.name}: node {node.name} still has edges")
        touch(self)
        del self._nodes[node.name]
        logged(self, (ComputeGraph._unremove, node.name, node, node.op_desc.node is node))
        self._order = None
        self.edits.node_removed(node.type)
        if self.bus.observed:
            self.bus.emit(NodeRemoved, self.name, node.name)
        # its cycles broken, as Node.discard does, but with no state of its anchors and desc
        # saved: the logged removal mends them (past a fold of 15k nodes at 40k, 45k states)
        node.break_cycles()

    def move_node(self, node: Node, dst: "ComputeGraph") -> None:
        """Move ``node`` into ``dst`` as it is, edges and all (as GE's merge moves the engine
        subgraphs' NodePtrs): its desc, anchors and edges stay the same objects, and an edge
        to a node left behind crosses the two graphs until the caller cuts it. Counted and
        traced as a removal here and an addition there; the bodies it owns follow it."""
        name = node.name
        if self._nodes.get(name) is not node:
            raise GraphError(f"graph {self.name}: node {name} is not in this graph")
        if name in dst._nodes:
            raise GraphError(f"graph {dst.name}: node name {name!r} already exists")
        touch(self)
        touch(dst)
        touch(node)
        del self._nodes[name]
        logged(self, (ComputeGraph._unmove, name, node))
        dst._nodes[name] = node
        logged(dst, (ComputeGraph._unadd, name))
        node.graph, node.seq = dst, dst._seq
        dst._seq += 1
        self._order = dst._order = None
        self.edits.node_removed(node.type)
        dst.edits.node_added(node.type)
        for body in node.op_desc.subgraph_names:
            dst.subgraph(body).set_parent(node, dst)
        if self.bus.observed:   # last: a debugger parked at either event sees the move made
            self.bus.emit(NodeRemoved, self.name, name)
            self.bus.emit(NodeAdded, dst.name, name, node.type)

    def _unmove(self, name: str, node: Node) -> None:
        self._nodes[name] = node   # at the end, as _unremove's; its own seq comes back with it
        self._order = None
        self._unsorted = True

    def find_node(self, name: str) -> Node | None:
        return self._nodes.get(name)

    def unique_name(self, base: str) -> str:
        return _unique(base, self._nodes)

    @property
    def nodes(self) -> list[Node]:
        """Direct nodes in insertion order."""
        return list(self._table().values())

    def __len__(self) -> int:
        return len(self._nodes)

    def __iter__(self) -> Iterator[Node]:
        return iter(list(self._table().values()))

    def all_nodes(self) -> list[Node]:
        """Nodes of this graph and, recursively, of the subgraphs its nodes own."""
        if not self.root._subgraphs:   # no node owns a body: most graphs, read whole by passes
            return list(self._table().values())
        out: list[Node] = []
        for node in self._table().values():
            out.append(node)
            for sub_name in node.op_desc.subgraph_names:
                out.extend(self.root.subgraph(sub_name).all_nodes())
        return out

    def holds(self, *op_types: str) -> bool:
        """Whether a node of this graph or of a subgraph its nodes own is of one of
        ``op_types`` (read in C: the pass lists ask it of the whole graph as a stage starts)."""
        return any(map(frozenset(op_types).__contains__, map(_OP_TYPE, self.all_nodes())))

    @property
    def input_nodes(self) -> list[Node]:
        nodes = self._table().values()   # filtered in C: asked of the whole graph as a stage starts
        data = list(compress(nodes, map(DATA_TYPES.__contains__, map(_OP_TYPE, nodes))))
        return sorted(data, key=lambda n: (n.op_desc.get_attr(ATTR_NAME_INDEX, 0), n.seq))

    @property
    def output_node(self) -> Node | None:
        return next((n for n in self._table().values() if n.type == NETOUTPUT), None)

    # -- subgraphs -----------------------------------------------------------------------------
    @property
    def root(self) -> "ComputeGraph":
        g = self
        while g.parent_graph is not None:
            g = g.parent_graph
        return g

    def add_subgraph(self, parent_node: Node, subgraph: "ComputeGraph") -> None:
        root = self.root
        if subgraph.name in root._subgraphs:
            raise GraphError(f"subgraph name {subgraph.name!r} already exists "
                             f"(parent {parent_node.name})")
        touch(root)
        subgraph.set_parent(parent_node, parent_node.graph)
        subgraph.bus = root.bus
        subgraph.edits = root.edits
        root._subgraphs[subgraph.name] = subgraph
        parent_node.op_desc.add_subgraph_name(subgraph.name)

    def set_parent(self, node: Node, graph: "ComputeGraph") -> None:
        """This subgraph hangs off ``node`` of ``graph`` from now (its parent moved)."""
        touch(self)
        self.parent_node, self.parent_graph = node, graph

    def remove_subgraph(self, name: str) -> None:
        """Forget a subgraph whose parent node is gone (label lowering inlines bodies)."""
        touch(self.root)
        subgraph = self.root._subgraphs.pop(name)
        parent = subgraph.parent_node
        if name in parent.op_desc.subgraph_names:
            parent.op_desc.remove_subgraph_name(name)

    def share_subgraphs_of(self, root: "ComputeGraph") -> None:
        """Let this (partition) graph resolve the If/Loop bodies that ``root`` owns, so its
        control-flow nodes keep working while they live here."""
        touch(self)
        self._subgraphs = root.root._subgraphs

    def subgraph(self, name: str) -> "ComputeGraph":
        return self.root._subgraphs[name]

    def unique_subgraph_name(self, base: str) -> str:
        return _unique(base, self.root._subgraphs)

    @property
    def subgraphs(self) -> list["ComputeGraph"]:
        return list(self.root._subgraphs.values())

    # -- order ---------------------------------------------------------------------------------
    def reorder(self, order: list[Node]) -> None:
        """Make ``order`` (every node once, each after its inputs) the graph's own: iteration and
        topological_sort() follow it from now on, as GE's TopologicalSorting fixes op ids and
        ReorderEventNodes places Send/Recv. The build needs this: stream order, events and
        memory lifetimes all assume one node order on each stream."""
        if len(order) != len(self._nodes) or len({n.name for n in order}) != len(order) \
                or any(self._nodes.get(n.name) is not n for n in order):
            raise GraphError(f"graph {self.name}: reorder needs each of its {len(self)} nodes once")
        position = {n.name: i for i, n in enumerate(order)}
        for node in order:
            late = next((p for p in node.in_nodes() if position[p.name] > position[node.name]),
                        None)
            if late is not None:
                raise GraphError(f"graph {self.name}: reorder puts {node.name} before its "
                                 f"input {late.name}")
        touch(self)
        logged(self, ReplacedTable((ComputeGraph._unreplace, self._table())))
        self._nodes = {n.name: n for n in order}
        self._unsorted = False
        for i, node in enumerate(order):
            touch(node)
            node.seq = i  # topological_sort breaks ties by seq, so it now returns ``order``
        self._seq = len(order)
        self._order = None

    def discard(self) -> None:
        """Empty a graph that will not be used again, breaking its nodes' cycles (Node.discard)."""
        touch(self)
        for node in self._table().values():
            node.discard()
        logged(self, ReplacedTable((ComputeGraph._unreplace, self._nodes)))
        self._nodes, self._unsorted = {}, False
        self._order = None

    def edge_edited(self, src: Anchor, dst: Anchor, linked: bool) -> None:
        """Anchors call this on every link (``linked``) and unlink of ``src`` to ``dst``: the
        edit counted (and noted, while watched), the cached order stale, a listener told."""
        edits = self.edits
        touch(edits)
        touch(self)   # its cached order goes: a rewind puts back the one that held then
        if linked:
            edits.edges_linked += 1
        else:
            edits.edges_unlinked += 1
        edits.total += 1
        if edits.touched is not None:
            edits.note_edge(src.owner, dst.owner)
        if edits.input_logs:
            consumer = dst.owner
            for log in edits.input_logs:
                log.append(consumer)
        self._order = None
        if self.bus.observed:   # the labels are strings to build: only for a listener
            self.bus.emit(AnchorLinked if linked else AnchorUnlinked, src.label, dst.label)

    def topological_sort(self) -> list[Node]:
        """Kahn's order over data and control edges, ties broken by insertion order. Kept until
        the next edit: executors and passes ask for it on every run."""
        return list(self.order_key)

    @property
    def order_key(self) -> object:
        """An object that stays the same (``is``) until the next edit of the nodes, the edges or
        their order: what a caller derives from the order, it keeps under this key."""
        if self._order is None:
            self._order = self._kahn()
        return self._order

    def _kahn(self) -> list[Node]:
        nodes = list(self._table().values())
        if self._in_order(nodes):
            return nodes
        # Counts by node, from the anchors: no list of predecessors is built per node. The heap
        # holds bare seqs (unique in a graph: add_node counts them, reorder renumbers), which
        # compare faster than (seq, name) pairs and give the same order. An edge from another
        # graph is not this graph's to order: one crosses between engine subgraphs while
        # Partition and the merge move nodes (move_node), until they cut it.
        pending: dict[Node, int] = {}
        by_seq: dict[int, Node] = {}
        ready: list[int] = []
        for n in nodes:
            by_seq[n.seq] = n
            count = 0
            for p in n.in_control_anchor.peers:
                if p.owner.graph is self:
                    count += 1
            for a in n.in_data_anchors:
                p = a.peer
                if p is not None and p.owner.graph is self:
                    count += 1
            pending[n] = count
            if not count:
                ready.append(n.seq)
        if len(by_seq) != len(pending):
            raise GraphError(f"graph {self.name}: two nodes share an insertion seq")
        heapq.heapify(ready)
        order: list[Node] = []
        pop, push = heapq.heappop, heapq.heappush
        while ready:
            node = by_seq[pop(ready)]
            order.append(node)
            # the consumers' anchors, not node.out_nodes(): no list is built per node
            for anchor in (*node.out_data_anchors, node.out_control_anchor):
                for peer in anchor.peers:
                    succ = peer.owner
                    left = pending.get(succ)
                    if left is None:   # in another graph
                        continue
                    left = pending[succ] = left - 1
                    if not left:
                        push(ready, succ.seq)
        if len(order) != len(self._nodes):
            # Every stuck node has a stuck predecessor, so walking back must come round a cycle.
            node, seen = next(n for n in self if pending[n] > 0), set()
            while node.name not in seen:
                seen.add(node.name)
                node = next(p for p in node.in_nodes() if pending.get(p, 0) > 0)
            raise GraphError(f"graph {self.name}: cycle through node {node.name} ({node.type})")
        return order

    def _in_order(self, nodes: list[Node]) -> bool:
        """Whether ``nodes`` (insertion order) is Kahn's order already: seqs rising and every
        edge coming from an earlier node of this graph. Then the smallest ready seq is always
        the next node's, so the heap has nothing to decide. A parsed graph and each engine
        subgraph are built so; an edit that adds a node feeding earlier ones is not."""
        last = -1
        for n in nodes:
            seq = n.seq
            if seq <= last:
                return False
            last = seq
            for a in n.in_data_anchors:
                peer = a.peer
                if peer is not None and (peer.owner.seq >= seq or peer.owner.graph is not self):
                    return False
            for peer in n.in_control_anchor.peers:
                if peer.owner.seq >= seq or peer.owner.graph is not self:
                    return False
        return True

    def __repr__(self) -> str:
        return f"<ComputeGraph {self.name}: {len(self)} nodes>"


def _same(a: object, b: object) -> bool:
    """``a`` and ``b`` are one value: of one type and equal (an array's elementwise == is no
    answer: different)."""
    try:
        return type(a) is type(b) and bool(a == b)
    except (TypeError, ValueError):
        return False


def _unique(base: str, taken: Container[str]) -> str:
    """``base``, or ``base_<n>`` for the first n not ``taken``."""
    name, n = base, 0
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    return name
