"""GEPass: runs a list of node passes over a graph in dependency order (GE's base_pass.cc).

The queue starts at nodes with no inputs; a node's successors join once all their inputs were
seen and none is suspended. Passes steer the walk with re-pass, immediate re-pass, deleted,
suspend and resume requests. A walk longer than 10 x the node count stops with a warning that
names the passes still editing: they are undoing each other.
"""
from __future__ import annotations

import copy
from collections import Counter, deque
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Generator, Iterator, Sequence

from ge_core.graph import ComputeGraph, GraphError, Node
from ge_core.graph.compute_graph import MARKED_READERS, InputLog
from ge_core.graph.graph_clone import shallow_copy
from ge_core.graph.journal import SHARED
from ge_core.passes.base_node_pass import BaseNodePass
from ge_core.passes.events import NodeVisited
from ge_core.passes.graph_pass import POSITION, POSITION_NODES, POSITION_TICKS, GraphPass

MAX_PASS_NODES_MULTIPLE = 10   # GE's kMaxPassNodesSizeMutiple
MAX_SUBGRAPH_DEPTH = 25
# inputs a node not ready is looked over again rather than kept where it waited (_Walk.ready):
# fewer cost less to read again than to keep (an Add's two: 15% of a walk's time)
_LOOK_AGAIN = 8
# Whether a stepped walk made here yields at each node pass (see ``positions_only``).
_VISITS: ContextVar[bool] = ContextVar("ge_pass_visits", default=True)


@contextmanager
def positions_only() -> Iterator[None]:
    """Inside, on this context, a stepped walk yields only its POSITIONs, not each node pass:
    for a driver that resumes copies taken there but never stops at a visit (a debugger stops
    on the trace's NodeVisited). A yield per node pass travels up every generator of the
    pipeline: at 20k nodes, a fifth of a stepped pass's time."""
    token = _VISITS.set(False)
    try:
        yield
    finally:
        _VISITS.reset(token)


class GEPassError(GraphError):
    pass


@dataclass
class GEPassReport:
    visits: int = 0
    edits_by_pass: Counter = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)


class _Walk:
    """The state of one GEPass walk over one graph (a debugger reads it while parked)."""

    # slots: read at every node, and a checkpoint's copy would otherwise leave the live walk's
    # attributes in a real dict, dearer to read (CPython's inline values are lost to __dict__)
    __slots__ = ("graph", "limit", "visits", "queue", "queued", "seen", "order", "seen_count",
                 "deleted", "suspended", "re_pass", "ran", "recent", "last_round", "positioned",
                 "waiting", "log")

    def __init__(self, graph: ComputeGraph) -> None:
        self.graph = graph
        self.limit = MAX_PASS_NODES_MULTIPLE * max(len(graph), 1)
        self.visits = 0                       # GE's passed_node_size
        self.queue: deque[Node] = deque(n for n in graph if not n.has_in_nodes())
        self.queued: set[Node] = set(self.queue)
        self.seen: set[Node] | None = set()   # None in a checkpoint's copy: see __deepcopy__
        self.order: list[Node] = []           # the nodes seen, in the order first seen
        self.seen_count = 0                   # a checkpoint's copy: how many of order it saw
        self.deleted: set[Node] = set()
        self.suspended: set[Node] = set()
        self.re_pass: dict[Node, None] = {}  # an ordered set: its order is the walk's order
        self.ran: list[BaseNodePass] = []     # the node passes run on the current node so far
        self.recent: Counter = Counter()      # pass -> edits since the last drain
        self.last_round: Counter = Counter()  # ... and in the round before it
        self.positioned = graph.bus.tick      # the tick of the last POSITION yielded
        # a node found not ready -> (the graph's edges linked and unlinked then, the first of
        # its inputs (data anchors, then control peers) whose node was unseen, the log and its
        # length then): see ready
        self.waiting: dict[Node, tuple[int, int, int, InputLog, int]] = {}
        # while walking, the log of the nodes whose inputs changed (compute_graph.InputLog)
        self.log = InputLog()

    def _seen(self) -> list[Node]:
        """The nodes seen, in order (of a checkpoint's copy too)."""
        return self.order if self.seen is not None else self.order[:self.seen_count]

    def __deepcopy__(self, memo: dict) -> "_Walk":
        """A copy for a checkpoint taken between two visits. One that shares the graph's
        objects (a journaled checkpoint: SHARED) copies the queue and the sets as they are,
        but the nodes seen, which grow by thousands: it holds how many the walk has seen,
        and shares the list of them in order, which the walk only appends to; a copy of it
        to go on from makes the set again (a checkpoint is copied at every one of ~50
        positions a press of a 20k-node pass, and resumed from once in a while). Otherwise
        nodes the graph no longer holds (passes removed them) are left out of the queue and
        the sets: the walk skips them as it meets them, and copying them would copy each
        one's op desc and weights, most of a restore's time. Suspended ones stay: the walk
        ends in error if any is left."""
        if SHARED in memo:   # the node passes have state
            new = shallow_copy(self, memo, deep=("ran",), shared=("seen", "order", "log"))
            new.log = InputLog()   # the walk opens its own as it sets out
            if self.seen is None:
                new.order = self.order[:self.seen_count]
                new.seen = set(new.order)
            else:
                new.seen, new.seen_count = None, len(self.order)
            return new
        new = _Walk.__new__(_Walk)

        def live(nodes):
            return [n for n in nodes if self.graph.find_node(n.name) is n]
        new.graph = copy.deepcopy(self.graph, memo)
        new.limit, new.visits = self.limit, self.visits
        new.queue = deque(copy.deepcopy(live(self.queue), memo))
        new.queued = set(copy.deepcopy(live(self.queued), memo))
        new.order = copy.deepcopy(live(self._seen()), memo)
        new.seen, new.seen_count = set(new.order), 0
        new.deleted = set(copy.deepcopy(live(self.deleted), memo))
        new.suspended = copy.deepcopy(self.suspended, memo)
        new.re_pass = dict.fromkeys(copy.deepcopy(live(self.re_pass), memo))
        new.ran = copy.deepcopy(self.ran, memo)
        new.recent, new.last_round = Counter(self.recent), Counter(self.last_round)
        new.positioned = self.positioned
        new.waiting, new.log = {}, InputLog()
        return new

    def push(self, node: Node, front: bool = False) -> None:
        if node in self.queued:
            return
        (self.queue.appendleft if front else self.queue.append)(node)
        self.queued.add(node)

    def ready(self, node: Node) -> bool:
        # Once or more per edge of a walk: the anchors read in place, no list of nodes made. A
        # node not ready keeps where it waited (see _ready_from)
        seen = self.seen
        waited = self.waiting.get(node) if self.waiting else None
        if waited is not None:
            return self._ready_from(node, waited)
        data = node.in_data_anchors
        for a in data:
            peer = a.peer
            if peer is not None and peer.owner not in seen:
                return self._waits(node, data.index(a))
        peers = node.in_control_anchor.peers
        for peer in peers:
            if peer.owner not in seen:
                return self._waits(node, len(data) + peers.index(peer))
        return self._unsuspended(node)

    def _ready_from(self, node: Node, waited: tuple[int, int, int, InputLog, int]) -> bool:
        """``ready`` of a node that waited before: seen only grows, so until an edge of its
        own changes the inputs before the one it waited at need no second look (a Sum of 8000
        inputs, asked after each of them: 64M looks, 10 s a walk). Its inputs here are its
        data anchors' peers, then its control peers. Whether an edge of its own changed is
        read from the graph's edge counts, and where they moved (the graph's edges, or a
        subgraph's: a Sum of K Loops, a body walked between two asks), from the walk's log
        while that is the shorter read."""
        data, peers, seen = node.in_data_anchors, node.in_control_anchor.peers, self.seen
        edits = self.graph.edits
        linked, unlinked, at, log, mark = waited
        if (linked, unlinked) != (edits.edges_linked, edits.edges_unlinked) and (
                log is not self.log or len(log) - mark >= at or node in log[mark:]):
            at = 0
        while at < len(data) + len(peers):
            peer = data[at].peer if at < len(data) else peers[at - len(data)]
            if peer is not None and peer.owner not in seen:
                return self._waits(node, at)
            at += 1
        del self.waiting[node]
        return self._unsuspended(node)

    def _waits(self, node: Node, at: int) -> bool:
        if at >= _LOOK_AGAIN:
            edits = self.graph.edits
            self.waiting[node] = (edits.edges_linked, edits.edges_unlinked, at, self.log,
                                  len(self.log))
        elif self.waiting:   # an edge changed, and it waits early on: what it kept is stale
            self.waiting.pop(node, None)
        return False

    def _unsuspended(self, node: Node) -> bool:
        return not self.suspended or self.suspended.isdisjoint(node.in_nodes())

    def push_ready_successors(self, node: Node, resumed: bool = False) -> None:
        # a successor already queued is not asked again (push would ignore it): a Sum queued
        # behind its last inputs was asked, input by input, to read them all again
        mark = None if resumed else self.log.asked.get(node)
        if mark is not None and len(self.log) - mark[0] < mark[1] and self._relinked(node, mark):
            return
        seen, queued, ready, push = self.seen, self.queued, self.ready, self.push
        successors = 0
        for a in (*node.out_data_anchors, node.out_control_anchor):   # out_nodes' order
            peers = a.peers
            successors += len(peers)
            for peer in peers:
                succ = peer.owner
                if succ not in seen and succ not in queued and ready(succ):
                    push(succ)
        if successors >= MARKED_READERS:
            self.log.asked[node] = (len(self.log), successors)

    def _relinked(self, node: Node, mark: tuple[int, int]) -> bool:
        """Ask again only the successors of ``node`` relinked since it last asked them all,
        and push the one that is ready; False, asking none, if two or more were (they go in
        their anchors' order, which asking them all gives). Since a successor not seen or
        queued was last asked, it can have turned ready only by an input seen (whose visit
        asked it), resumed (asked then too) or relinked (in the log since the mark). A node
        re-passed each round asked every successor each time: a shape Const read by 8000
        Reshapes that go one a round, 16M asks."""
        seen, queued = self.seen, self.queued
        found = None
        for n in self.log[mark[0]:]:
            if n is found or n in seen or n in queued or not n.reads(node):
                continue
            if found is not None:
                return False
            found = n
        self.log.asked[node] = (len(self.log), mark[1])
        if found is not None and self.ready(found):
            self.push(found)
        return True

    def take(self, passes: Sequence[BaseNodePass]) -> None:
        """Collect what each pass asked for after running on a node."""
        for p in passes:
            if not p.requested:
                continue
            self.deleted.update(p.deleted)
            for n in p.re_pass:
                self.re_pass[n] = None
            for n in reversed(p.immediate_re_pass):  # keeps the pass's order at the front
                if n in self.seen and n not in self.deleted:
                    self.push(n, front=True)
            self.suspended.update(p.suspended)
            for n in p.resumed:
                self.suspended.discard(n)
                self.push_ready_successors(n, resumed=True)


class GEPass:
    def __init__(self, graph: ComputeGraph, passes: Sequence[BaseNodePass], depth: int = 1,
                 report: GEPassReport | None = None, steps: bool = True) -> None:
        """``steps``: whether ``walk`` yields at each node pass (a driver stepping it); a free
        run's walk yields nothing, which spares every visit the generators' round trip."""
        if depth > MAX_SUBGRAPH_DEPTH:
            raise GEPassError(f"graph {graph.name}: subgraphs nested deeper than "
                              f"{MAX_SUBGRAPH_DEPTH}")
        self.graph = graph
        self.passes = list(passes)
        # each with its name and types, read once: at every visit they are class attributes
        # looked up through the instance (not cached by CPython 3.11's attribute specialising)
        self._named = [(p, p.name, p.types) for p in self.passes]
        self.depth = depth
        self.report = report or GEPassReport()
        self.steps = steps
        self.visits = steps and _VISITS.get()   # it yields at each node pass
        self.state: _Walk | None = None   # the walk in progress, or the last one

    def run(self) -> GEPassReport:
        for _ in self.walk():
            pass
        return self.report

    def walk(self, resume: bool = False) -> Iterator[tuple[str, Node | None]]:
        """The walk as a generator: yields (pass name, node) as each node pass is about to
        run (if made with ``steps``, outside ``positions_only``), so a driver can step node by
        node; ``run`` exhausts it.

        A stepped walk of a root graph also yields POSITION as it sets out and every
        POSITION_NODES visits, between two nodes: there its whole state is ``state`` and the
        node passes' own, so a copy of the GEPass taken there goes on with
        ``walk(resume=True)`` (a debugger's checkpoint inside a pass: at 40k nodes one walk is
        ~300k ticks)."""
        graph = self.graph
        walk = self.state if resume else _Walk(graph)
        self.state = walk
        positions = self.steps and self.depth == 1
        # a log of the inputs changed from here (a resumed copy's own: its marks named another)
        logs = graph.edits.input_logs
        walk.log = logs.open()
        try:
            if positions and not resume:
                # Setting out read every node, as did the stage's start before it (its inputs, the
                # op types its pass lists ask for): counted as work, so a checkpoint may be made
                # here and a step back to the first visits need not read them all again (at 40k
                # nodes, ~50 ms of a step back to InferShapeForPreprocess's start)
                graph.bus.work += len(graph)
                yield POSITION
            while True:
                while walk.queue:
                    node = walk.queue.popleft()
                    walk.queued.discard(node)
                    if node in walk.deleted or graph.find_node(node.name) is not node:
                        continue
                    if walk.visits >= walk.limit:
                        self._stopped(walk)
                        return
                    if node not in walk.seen:
                        walk.seen.add(node)
                        walk.order.append(node)
                    walk.visits += 1
                    yield from self._visit(node, walk)
                    if node not in walk.deleted and node.op_desc.subgraph_names:
                        for sub in node.op_desc.subgraph_names:
                            yield from GEPass(graph.root.subgraph(sub), self.passes,
                                              self.depth + 1, self.report, self.steps).walk()
                        yield from self._visit(node, walk, after_subgraph=True)
                    if node not in walk.deleted:
                        walk.push_ready_successors(node)
                    else:   # seen, and its consumers not asked: a pass may have left them linked
                        walk.log.extend(node.out_nodes())
                    if positions and (walk.visits % POSITION_NODES == 0
                                      or graph.bus.tick - walk.positioned >= POSITION_TICKS):
                        walk.positioned = graph.bus.tick
                        yield POSITION
                if not walk.re_pass:
                    break
                walk.last_round, walk.recent = walk.recent, Counter()
                for n in walk.re_pass:
                    if n not in walk.deleted and (n in walk.seen or walk.ready(n)):
                        walk.push(n)
                walk.re_pass.clear()
            self.report.visits += walk.visits
            if walk.suspended:
                names = ", ".join(sorted(n.name for n in walk.suspended))
                raise GEPassError(f"graph {graph.name}: nodes suspended and never resumed: "
                                  f"{names}")
        finally:
            logs.close(walk.log)
            walk.log = InputLog()   # what the log holds goes with it (removed nodes)

    def _stopped(self, walk: _Walk) -> None:
        editing = walk.recent + walk.last_round
        culprits = ", ".join(sorted(p for p, _ in editing.most_common(3))) or "none"
        self.report.warnings.append(
            f"graph {self.graph.name}: GEPass stopped after {walk.visits} node visits "
            f"(10 x {len(self.graph)} nodes); passes still editing: {culprits}")
        self.report.visits += walk.visits

    def _visit(self, node: Node, walk: _Walk,
               after_subgraph: bool = False) -> Iterator[tuple[str, Node]]:
        # Once per node pass of every node (95k times a pass group at 20k nodes): locals. Whether
        # the bus is heard is asked again after each yield: a driver parked there may have
        # subscribed.
        graph, steps = self.graph, self.visits
        graph_name, edits = graph.name, graph.edits   # the same object for good (journal.py)
        emit = graph.bus.emit if graph.bus.observed else None
        edits_by_pass, recent = self.report.edits_by_pass, walk.recent
        ran = walk.ran = []   # the passes run on this node so far, with their requests
        before = edits.total
        for p, name, types in self._named:
            if p.requested:   # a pass that asked for nothing on its last node is still reset
                p.init()
            p.after_subgraph = after_subgraph   # GE's kOptimizeAfterSubGraph option
            ran.append(p)
            op = node.op_desc   # node.name and .type, read as each pass is about to run
            if emit is not None:
                emit(NodeVisited, name, graph_name, op.name, op.type)
            if steps:
                yield name, node
                before = edits.total   # a stepping driver ran between the passes
                emit = graph.bus.emit if graph.bus.observed else None
            if types is None or op.type in types:
                p.run(node)
            after = edits.total
            if after != before:
                made = after - before
                edits_by_pass[name] += made
                recent[name] += made
                before = after
            if node in p.deleted:
                break
        walk.take(ran)


class NodePassGroup(GraphPass):
    """A PassManager entry that runs node passes through GEPass (GE's NamesToPass)."""

    covers_subgraphs = True  # GEPass walks into subgraphs itself

    def __init__(self, name: str, passes: Sequence[BaseNodePass]) -> None:
        self.name = name  # type: ignore[misc]
        self.passes = list(passes)
        self.last_report = GEPassReport()
        self.ge_pass: GEPass | None = None   # the walk in progress, or the last one

    def run(self, graph: ComputeGraph) -> bool:
        for _ in self.walk(graph, steps=False):
            pass
        return bool(self.last_report.edits_by_pass)

    def details(self) -> tuple[tuple[str, int], ...]:
        """Every member with its edits (0: it changed no node, edge, attribute or desc), in the
        group's order."""
        edits = self.last_report.edits_by_pass
        return tuple((p.name, edits[p.name]) for p in self.passes)

    def walk(self, graph: ComputeGraph, steps: bool = True
             ) -> Generator[tuple[str, Node | None], None, bool]:
        self.ge_pass = GEPass(graph, self.passes, steps=steps)
        self.last_report = self.ge_pass.report
        return (yield from self.resume())

    def resume(self) -> Generator[tuple[str, Node | None], None, bool]:
        """Go on with the walk a copy was taken inside (at a POSITION)."""
        ge_pass = self.ge_pass
        yield from ge_pass.walk(resume=ge_pass.state is not None)
        self.warnings.extend(self.last_report.warnings)
        return bool(self.last_report.edits_by_pass)
