"""GEPass scheduling (hicann/ge compiler/graph/passes/base_pass.cc) and the PassManager's records
and events."""
import copy
from collections import Counter

import pytest

from ge_core.graph import ComputeGraph, GraphUtils, OpDesc
from ge_core.passes import (BaseNodePass, GEPass, GEPassError, GraphPass, NodePassGroup,
                            NodeVisited, PassBegin, PassEnd, PassManager)
from ge_core.passes import ge_pass
from ge_core.passes.graph_pass import POSITION
from npu_emu.base.trace import TraceBus, TraceRecorder


def graph(*edges, bus=None):
    """Nodes named by the edges' ends, created in first-mention order; 'x>y' data edges."""
    g = ComputeGraph("g", bus or TraceBus())
    n_in: dict[str, int] = {}
    for e in edges:
        src, dst = e.split(">")
        n_in.setdefault(src, 0)
        n_in[dst] = n_in.get(dst, 0) + 1
    for name, k in n_in.items():
        g.add_node(OpDesc(name, "Op", k, 1))
    used: dict[str, int] = {}
    for e in edges:
        src, dst = e.split(">")
        i = used.get(dst, 0)
        used[dst] = i + 1
        GraphUtils.add_edge(g.find_node(src).out_data_anchor(0), g.find_node(dst).in_data_anchor(i))
    return g


class Log(BaseNodePass):
    name = "Log"

    def __init__(self, log):
        super().__init__()
        self.log = log

    def run(self, node):
        self.log.append(node.name)


def test_walks_in_dependency_order_from_inputless_nodes():
    g = graph("a>c", "b>c", "c>d", "a>d")
    log = []
    GEPass(g, [Log(log)]).run()
    assert log == ["a", "b", "c", "d"]


def test_a_node_added_by_one_pass_is_seen_by_the_others_in_the_same_round():
    g = graph("a>b", "b>c")
    log = []

    class Insert(BaseNodePass):
        name = "Insert"

        def run(self, node):
            if node.name == "a":
                n = node.graph.add_node(OpDesc("new", "Op", 1, 1))
                GraphUtils.insert_node_between(node.out_data_anchor(0),
                                               node.graph.find_node("b").in_data_anchor(0), n)

    GEPass(g, [Insert(), Log(log)]).run()
    assert log == ["a", "new", "b", "c"]


def test_immediate_re_pass_goes_to_the_front_re_pass_waits_for_the_drain():
    g = graph("a>b", "b>c", "c>d")
    log = []

    class Ask(BaseNodePass):
        name = "Ask"

        def run(self, node):
            if node.name == "b" and log.count("a") == 1:
                self.add_immediate_re_pass_node(node.graph.find_node("a"))
            if node.name == "c" and log.count("b") == 1:
                self.add_re_pass_node(node.graph.find_node("b"))

    GEPass(g, [Ask(), Log(log)]).run()
    assert log == ["a", "b", "a", "c", "d", "b"]


def test_a_deleted_node_gets_no_further_passes():
    g = graph("a>b", "b>c")
    log = []

    class Delete(BaseNodePass):
        name = "Delete"

        def run(self, node):
            if node.name == "b":
                self.isolate_and_delete_node(node)

    GEPass(g, [Delete(), Log(log)]).run()
    assert "b" not in log and g.find_node("b") is None
    assert g.find_node("c").in_data_nodes() == [g.find_node("a")]


def test_suspended_node_holds_back_its_successors_until_resumed():
    g = graph("a>b", "b>c", "a>d")
    log = []

    class Suspend(BaseNodePass):
        name = "Suspend"

        def run(self, node):
            if node.name == "b":
                self.add_node_suspend(node)
            if node.name == "d":
                self.add_node_resume(node.graph.find_node("b"))

    GEPass(g, [Suspend(), Log(log)]).run()
    assert log == ["a", "b", "d", "c"]


def test_a_suspend_never_resumed_is_an_error():
    g = graph("a>b", "b>c")

    class Suspend(BaseNodePass):
        name = "Suspend"

        def run(self, node):
            if node.name == "b":
                self.add_node_suspend(node)

    with pytest.raises(GEPassError, match="suspended and never resumed: b"):
        GEPass(g, [Suspend()]).run()


def test_passes_undoing_each_other_stop_at_ten_times_the_node_count():
    g = graph("a>b", "b>c")

    class SetOne(BaseNodePass):
        name = "SetOne"

        def run(self, node):
            if node.op_desc.get_attr("x", 0) == 0:
                node.op_desc.set_attr("x", 1)
                self.add_re_pass_node(node)

    class SetZero(BaseNodePass):
        name = "SetZero"

        def run(self, node):
            if node.op_desc.get_attr("x") == 1:
                node.op_desc.set_attr("x", 0)
                self.add_re_pass_node(node)

    report = GEPass(g, [SetOne(), SetZero()]).run()
    assert report.visits == 30
    assert len(report.warnings) == 1
    assert "stopped after 30 node visits" in report.warnings[0]
    assert "SetOne" in report.warnings[0] and "SetZero" in report.warnings[0]


def test_recurses_into_subgraphs_and_revisits_the_parent():
    g = graph("a>b")
    body = graph("s>t")
    body.name = "body"
    g.add_subgraph(g.find_node("b"), body)
    log = []
    GEPass(g, [Log(log)]).run()
    assert log == ["a", "b", "s", "t", "b"]


def test_subgraph_nesting_limit():
    g = graph("a>b")
    parent = g.find_node("b")
    for depth in range(26):
        sub = ComputeGraph(f"sub{depth}")
        inner = sub.add_node(OpDesc(f"n{depth}", "Op", 0, 1))
        g.add_subgraph(parent, sub)
        parent = inner
    with pytest.raises(GEPassError, match="nested deeper than 25"):
        GEPass(g, [Log([])]).run()


def test_pass_manager_records_and_announces_each_pass():
    bus = TraceBus()
    rec = TraceRecorder()
    bus.subscribe(rec)
    g = graph("a>b", "b>c", bus=bus)

    class DropB(BaseNodePass):
        name = "DropB"

        def run(self, node):
            if node.name == "b":
                self.isolate_and_delete_node(node)

    class Nothing(GraphPass):
        name = "Nothing"

        def run(self, graph):
            return False

    pm = PassManager("OptimizeOriginalGraph")
    pm.add_pass("DropB", NodePassGroup("DropB", [DropB()])).add_pass("Nothing", Nothing())
    assert pm.run(g) is True
    first, second = pm.history
    assert (first.name, first.changed, first.nodes_removed,
            first.nodes_after) == ("DropB", True, 1, 2)
    assert (second.name, second.changed) == ("Nothing", False)
    kinds = [type(e) for e in rec.events if isinstance(e, (PassBegin, PassEnd))]
    assert kinds == [PassBegin, PassEnd, PassBegin, PassEnd]
    visited = [e.node for e in rec.events if isinstance(e, NodeVisited)]
    # Deleting b re-passes its neighbours after the drain; c joins then too, as its
    # producer b vanished before it could queue c.
    assert visited == ["a", "b", "a", "c"]


def test_a_stepped_walk_is_heard_from_the_pass_a_driver_subscribed_at():
    """A driver parked at a node pass may subscribe there: the node's later passes are heard."""
    g = graph("a>b")
    seen = []
    walk = GEPass(g, [Log([]), Log([])]).walk()
    assert next(walk) == POSITION   # set out: a place to resume from, before any visit
    assert next(walk) == ("Log", g.find_node("a"))   # unheard so far: nothing emitted
    g.bus.subscribe(lambda e: seen.append(e))
    for _ in walk:
        pass
    assert [(e.node, e.pass_name) for e in seen if isinstance(e, NodeVisited)] == [
        ("a", "Log"), ("b", "Log"), ("b", "Log")]


def test_a_manager_whose_pass_failed_runs_again_from_its_first_pass():
    """A pass that raises leaves no place to resume from: the manager's next run (on another
    graph) begins each pass afresh, from the first."""
    class Fails(GraphPass):
        name = "Fails"

        def run(self, graph):
            if graph.name == "bad":
                raise RuntimeError("broken")
            return False

    log: list[str] = []
    pm = PassManager("OptimizeOriginalGraph")
    pm.add_pass("Log", NodePassGroup("Log", [Log(log)])).add_pass("Fails", Fails())
    bad = graph("a>b")
    bad.name = "bad"
    with pytest.raises(RuntimeError, match="broken"):
        pm.run(bad)
    log.clear()
    bus = TraceBus()
    rec = TraceRecorder()
    bus.subscribe(rec)
    assert pm.run(graph("x>y", bus=bus)) is False
    assert log == ["x", "y"]   # the first pass ran again
    assert [(type(e).__name__, e.pass_name) for e in rec.events
            if isinstance(e, (PassBegin, PassEnd))] == [
        ("PassBegin", "Log"), ("PassEnd", "Log"), ("PassBegin", "Fails"), ("PassEnd", "Fails")]


def test_a_pass_of_some_types_runs_on_those_alone_and_still_visits_every_node():
    """GEPass calls a node pass that declares its op types (a RewritePass: its rules' types)
    on no other node; the trace visits every node with it all the same."""
    from ge_core.passes.rewrite_pass import RewritePass

    class OnRelu(RewritePass):
        name = "OnRelu"
        rules = ((("Relu", "Sigmoid"), lambda p, node: False),)
    assert OnRelu.types == {"Relu", "Sigmoid"}

    bus, rec, log = TraceBus(), TraceRecorder(), []
    bus.subscribe(rec)
    g = graph("a>b", "b>c", bus=bus)
    g.find_node("b").op_desc.set_type("Relu")

    class Typed(Log):
        types = frozenset({"Relu"})
    GEPass(g, [Typed(log)]).run()
    assert log == ["b"]
    assert [e.node for e in rec.events if isinstance(e, NodeVisited)] == ["a", "b", "c"]


def test_a_typed_pass_sees_a_node_an_earlier_pass_retyped_and_a_rule_pass_of_its_own_run_any():
    from ge_core.passes.rewrite_pass import RewritePass
    g, log = graph("a>b"), []

    class Retype(BaseNodePass):
        name = "Retype"

        def run(self, node):
            if node.name == "b":
                node.op_desc.set_type("Relu")

    class Typed(Log):
        types = frozenset({"Relu"})
    GEPass(g, [Retype(), Typed(log)]).run()
    assert log == ["b"]   # the type read as the pass is about to run, not as the node began

    class OwnRun(RewritePass):   # a rule pass that runs its own way is not filtered by rules
        rules = ((("Relu",), lambda p, node: False),)

        def run(self, node):
            log.append(node.name)

    class Untyped(RewritePass):
        types = None
    assert OwnRun.types is None and Untyped.types is None


class _CountedReads(list):
    """A node's input anchors, counting the anchors read: by index, by iteration, or passed
    over by ``index`` (how the walk asks whether the node is ready)."""
    reads = 0

    def __getitem__(self, i):
        _CountedReads.reads += 1
        return super().__getitem__(i)

    def __iter__(self):
        for item in super().__iter__():
            _CountedReads.reads += 1
            yield item

    def index(self, item, *args):
        at = super().index(item, *args)
        _CountedReads.reads += at + 1
        return at


def _join(width: int, one_producer: bool):
    """A source read by ``width`` nodes (or by one node, ``width`` times) that one node joins;
    the join's input anchors count their reads."""
    g = graph(*(f"s>n{i}" for i in range(width)), *(f"n{i}>j" for i in range(width)))
    join = g.find_node("j")
    if one_producer:   # every input of the join from n0
        for i, a in enumerate(join.in_data_anchors):
            GraphUtils.remove_edge(a.peer, a)
            GraphUtils.add_edge(g.find_node("n0").out_data_anchor(0), a)
    join.in_data_anchors = _CountedReads(join.in_data_anchors)
    _CountedReads.reads = 0
    return g


@pytest.mark.parametrize("one_producer", [False, True])
def test_a_join_of_many_inputs_is_asked_if_ready_in_time_linear_in_them(one_producer):
    """The walk asks a node whether all its inputs were seen after each of them is: a join of
    N inputs read them all each time (N^2 reads; 8000 of them took 10 s a walk). Where it
    waits is kept while no edge changes, and once queued it is not asked again. The order of
    the walk is the dependency order either way."""
    width = 400
    g, log = _join(width, one_producer), []
    GEPass(g, [Log(log)]).run()
    assert log[0] == "s" and log[-1] == "j" and len(log) == len(g)
    assert _CountedReads.reads <= 3 * width


def test_a_join_waiting_at_an_input_looks_again_once_an_edge_changes():
    """What the walk kept of where a node waits holds only while no edge changes: a pass that
    rewires an input the join has already passed over to an unseen node must hold the join
    back until that node is seen (here the last of a chain the walk reaches after j's inputs)."""
    inputs = [f"a{i}" for i in range(10)]   # enough for the walk to keep where j waits
    g = graph(*(f"s>{a}" for a in inputs), *(f"{a}>j" for a in inputs), "s>x", "x>y", "y>late")
    log = []

    class Rewire(BaseNodePass):
        name = "Rewire"

        def run(self, node):
            if node.name == "a9":   # j waits at its input from a9; a0 was passed over
                join, late = node.graph.find_node("j"), node.graph.find_node("late")
                a = join.in_data_anchors[0]
                GraphUtils.remove_edge(a.peer, a)
                GraphUtils.add_edge(late.out_data_anchor(0), a)

    GEPass(g, [Rewire(), Log(log)]).run()
    assert log == ["s", *inputs, "x", "y", "late", "j"]


def test_a_join_waiting_at_an_input_keeps_its_place_while_only_other_edges_change():
    """Edits elsewhere between two asks (a subgraph's, as the bodies of K Loops a Sum joins are
    walked one by one) leave the join's own inputs as they were: it goes on from where it
    waited, which the walk's log of changed inputs tells, where the graph's edge counts alone
    sent it back to its first input (N^2 reads). The order of the walk is the same."""
    width = 400
    g = _join(width, one_producer=False)
    u, v = (g.add_node(OpDesc(name, "Relu", 1, 1)) for name in ("u", "v"))
    GraphUtils.add_edge(u.out_data_anchor(0), v.in_data_anchor(0))
    log = []

    class Elsewhere(BaseNodePass):
        name = "Elsewhere"

        def run(self, node):
            if node.name.startswith("n"):   # u -> v unlinked and linked again
                GraphUtils.remove_edge(u.out_data_anchor(0), v.in_data_anchor(0))
                GraphUtils.add_edge(u.out_data_anchor(0), v.in_data_anchor(0))

    _CountedReads.reads = 0
    GEPass(g, [Elsewhere(), Log(log)]).run()
    assert log[-1] == "j" and len(log) == len(g)
    assert _CountedReads.reads <= 3 * width


def _asks(monkeypatch) -> list:
    """The nodes the walk asks whether they are ready, in order."""
    asked, ready = [], ge_pass._Walk.ready

    def counted(walk, node):
        asked.append(node)
        return ready(walk, node)
    monkeypatch.setattr(ge_pass._Walk, "ready", counted)
    return asked


class _DeleteChain(BaseNodePass):
    """Deletes every node named c*, its input 0 joined to its output (GE's IsolateAndDeleteNode:
    its inputs and outputs re-passed in the next round)."""
    name = "DeleteChain"

    def run(self, node):
        if node.name.startswith("c"):
            self.isolate_and_delete_node(node, {0: 0})


def test_a_node_re_passed_each_round_asks_only_the_successors_relinked_since(monkeypatch):
    """A chain whose nodes each also read one shared node k, deleted one a round: each round
    re-passes k, which asked every successor not yet seen whether it was ready (a shape Const
    read by 8000 Reshapes: 16M asks, 5 s a walk). Since k's last visit only a node relinked
    can have turned ready: the rest are not asked again, and the walk is the same."""
    n = 300
    edges = ["x>c0", "k>c0", *(e for i in range(1, n) for e in (f"c{i - 1}>c{i}", f"k>c{i}")),
             f"c{n - 1}>y"]
    asked = _asks(monkeypatch)
    log = []
    GEPass(graph(*edges), [Log(log), _DeleteChain()]).run()
    assert [name for name in log if name.startswith("c")] == [f"c{i}" for i in range(n)]
    assert log[-1] == "y"
    assert len(asked) <= 4 * n


def _meddled(seed: int) -> tuple[GEPass, list[str]]:
    """A walk over a random DAG (edges from lower numbers to higher; a few nodes read by many)
    by a pass that, by a seeded choice per visit, deletes a node (its input joined to its
    outputs, or only marked deleted, left linked), relinks an input of a later node, re-passes
    a node, or suspends a node that a later visit resumes; and the list its visits go to."""
    import random
    rng = random.Random(seed)
    size = 40
    edges = []
    for j in range(1, size):
        hubs = [h for h in (0, 1, 2) if h < j and rng.random() < 0.5]
        others = rng.sample(range(j), min(j, rng.choice((1, 1, 2))))
        edges += [f"n{i}>n{j}" for i in dict.fromkeys(hubs + others)]
    log: list[str] = []

    class Meddle(BaseNodePass):
        name = "Meddle"

        def __init__(self):
            super().__init__()
            self.held, self.visits = [], Counter()   # its own: a copy of the walk copies them

        def run(self, node):
            if node.name == "n0":   # the walk's one source: the walk goes on past it
                return
            self.visits[node.name] += 1
            choice = random.Random(f"{seed}:{node.name}:{self.visits[node.name]}")
            graph_, k = node.graph, int(node.name[1:])
            later = [m for m in graph_ if int(m.name[1:]) > k and m.in_data_anchors]
            act = choice.random()
            if act < 0.15 and node.in_data_anchors:
                self.isolate_and_delete_node(node, {0: 0} if node.out_data_anchors else {})
            elif act < 0.2:
                self.add_node_deleted(node)   # linked still
            elif act < 0.45 and later:
                m = choice.choice(later)
                a = choice.choice(m.in_data_anchors)
                src = choice.choice([s for s in graph_ if int(s.name[1:]) < int(m.name[1:])])
                if a.peer is not None:
                    GraphUtils.remove_edge(a.peer, a)
                GraphUtils.add_edge(src.out_data_anchor(0), a)
            elif act < 0.6:
                self.add_re_pass_node(choice.choice(list(graph_)))
            elif act < 0.7 and not self.held:
                self.held.append(node)
                self.add_node_suspend(node)
            elif self.held and act > 0.85:
                self.add_node_resume(self.held.pop())

    return GEPass(graph(*edges), [Meddle(), Log(log)]), log


def _walked(walking: GEPass, log: list[str], resume: bool = False) -> list[str]:
    try:
        for _ in walking.walk(resume):
            pass
    except GEPassError as e:   # a suspend left: every walk of the seed must end so
        log.append(str(e))
    return log


@pytest.mark.parametrize("seed", range(60))
def test_asking_only_the_relinked_successors_walks_as_asking_all(seed, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(ge_pass._Walk, "_relinked", lambda walk, node, mark: False)
        every = _walked(*_meddled(seed))
    assert _walked(*_meddled(seed)) == every


def test_a_walk_copied_at_a_position_goes_on_as_the_walk_went(monkeypatch):
    """A copy of a walk (a debugger's checkpoint) made where it yields a POSITION goes on to
    visit what the walk went on to: the copy has no relinks' log of its own, so it asks every
    successor again until it keeps one."""
    monkeypatch.setattr(ge_pass, "POSITION_NODES", 7)
    resumed = 0
    for seed in range(20):
        walking, log = _meddled(seed)
        copies = []
        try:
            for step in walking.walk():
                if step == POSITION:
                    copies.append(copy.deepcopy((walking, log)))
        except GEPassError as e:
            log.append(str(e))
        for walk_copy, visited in copies[1:]:
            assert _walked(walk_copy, visited, resume=True) == log, seed
            resumed += 1
    assert resumed >= 60
