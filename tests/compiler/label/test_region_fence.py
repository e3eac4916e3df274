"""The region fence (ge_core/compiler/label/region_fence.py): each lowered region is one step of
its graph's program order. A graph's later fences read only what the earlier ones left to
read, and a first's edge waits until it stops being one, so each region must end up ordered as
a fence reading the whole graph would order it, and the models must still compute what
onnxruntime computes."""
import random

import numpy as np
import pytest
from onnx import TensorProto as T, helper, numpy_helper

import ge_core.compiler.label.region_fence as region_fence
from ge_core.graph import Node
from labels_testing import assert_agree, compile_model, run_everywhere, vi


def _control_flow_model(seed: int):
    """Random Adds, Relus, Ifs (some with an If inside) and Loops over a DAG of [1, 4] values;
    the Ifs branch on the input c. Every op is exact in float32, so the numbers agree to the
    last bit wherever they are computed."""
    rng = random.Random(seed)
    values, nodes = ["x"], []
    for i in range(rng.randint(8, 24)):
        a, b, out = rng.choice(values), rng.choice(values), f"v{i}"
        kind = rng.random()
        if kind < 0.3:
            nodes.append(helper.make_node("Add", [a, b], [out], f"add{i}"))
        elif kind < 0.45:
            nodes.append(helper.make_node("Relu", [a], [out], f"relu{i}"))
        elif kind < 0.8:
            then_nodes, result = [helper.make_node("Abs", [a], [f"s{i}"], f"s{i}")], f"s{i}"
            if rng.random() < 0.3:
                inner_then = helper.make_graph([helper.make_node("Relu", [b], [f"r{i}"])],
                                               f"it{i}", [], [vi(f"r{i}", [1, 4])])
                inner_else = helper.make_graph([helper.make_node("Neg", [b], [f"n{i}"])],
                                               f"ie{i}", [], [vi(f"n{i}", [1, 4])])
                then_nodes += [helper.make_node("If", ["c"], [f"i{i}"], f"inner{i}",
                                                then_branch=inner_then, else_branch=inner_else),
                               helper.make_node("Add", [f"s{i}", f"i{i}"], [f"a{i}"])]
                result = f"a{i}"
            then_g = helper.make_graph(then_nodes, f"then{i}", [], [vi(result, [1, 4])])
            else_g = helper.make_graph([helper.make_node("Sub", [a, b], [f"e{i}"])], f"else{i}",
                                       [], [vi(f"e{i}", [1, 4])])
            nodes.append(helper.make_node("If", ["c"], [out], f"if{i}", then_branch=then_g,
                                          else_branch=else_g))
        else:
            body = helper.make_graph(
                [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
                 helper.make_node("Add", ["carried", a], ["carried_out"])], f"body{i}",
                [vi("i", [], T.INT64), vi("cond_in", [], T.BOOL), vi("carried", [1, 4])],
                [vi("cond_out", [], T.BOOL), vi("carried_out", [1, 4])])
            nodes.append(helper.make_node("Loop", ["trips", "", b], [out], f"loop{i}",
                                          body=body))
        values.append(out)
    outputs = rng.sample(values[1:], min(3, len(values) - 1))
    graph = helper.make_graph(nodes, f"cf{seed}", [vi("x", [1, 4]), vi("c", [], T.BOOL)],
                              [vi(o, [1, 4]) for o in outputs],
                              [numpy_helper.from_array(np.array(2, np.int64), "trips")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def _whole_graph_fence(node, region):
    """What a fence reading the whole graph puts after the tail, and before the head (read once
    the head has its inputs)."""
    inside, before, stack = set(region), set(), list(region[0].in_nodes())
    while stack:   # the head's ancestors
        n = stack.pop()
        if n not in before:
            before.add(n)
            stack += n.in_nodes()
    after = {n for n in node.graph.topological_sort() if n not in inside and n not in before
             and n is not node and not region_fence.idle_source(n)}
    return after, before


def _count_fence_reads(monkeypatch, count: list) -> None:
    """Each input the fences' own first test reads (``_input``), counted in ``count[0]``."""
    read_one = region_fence._input

    def one_input(data, peers, at):
        count[0] += 1
        return read_one(data, peers, at)
    monkeypatch.setattr(region_fence, "_input", one_input)


def _reach(start, step):
    seen, stack = set(), [start]
    while stack:
        for n in step(stack.pop()):
            if n not in seen:
                seen.add(n)
                stack.append(n)
    return seen


def test_each_region_is_ordered_as_a_fence_of_the_whole_graph_orders_it(monkeypatch):
    """When its graph's lowering ends, each region still has before its head what a fence
    reading the whole graph put there, and after its tail all it put after (the firsts' edges
    wait until each stops being one, and then come from the last tail: one edge each)."""
    fence, close = region_fence.RegionFences.fence, region_fence.RegionFences.close
    regions, kept, checked = {}, [], []

    def recorded(self, node, region):
        kept.append(node.graph in self._graphs)
        fence(self, node, region)
        after, before = _whole_graph_fence(node, region)
        assert self._graphs[node.graph].before == before | set(region), node.name
        regions.setdefault(node.graph, []).append((node.name, region[0], region[-1], after,
                                                   before))

    def closed(self, graph):
        close(self, graph)
        present = set(graph.all_nodes())
        for name, head, tail, after, before in regions.pop(graph, []):
            assert after & present <= _reach(tail, lambda n: n.out_nodes()), name
            assert before & present <= _reach(head, lambda n: n.in_nodes()), name
            checked.append(name)
    monkeypatch.setattr(region_fence.RegionFences, "fence", recorded)
    monkeypatch.setattr(region_fence.RegionFences, "close", closed)
    for seed in range(12):
        compile_model(_control_flow_model(seed))
    assert len(checked) > 60 and sum(kept) > 40   # most fences went on from what was kept


def _ifs(count: int, side_by_side: bool = False):
    """``count`` Ifs on the input c, each branch one op, in a chain (each reads the last) or
    side by side (each reads x); a Sum of the last (or of all) is the output s."""
    x, nodes = "x", []
    for i in range(count):
        then_g = helper.make_graph([helper.make_node("Relu", [x], [f"t{i}"])], f"then{i}", [],
                                   [vi(f"t{i}", [1, 4])])
        else_g = helper.make_graph([helper.make_node("Neg", [x], [f"e{i}"])], f"else{i}", [],
                                   [vi(f"e{i}", [1, 4])])
        nodes.append(helper.make_node("If", ["c"], [f"y{i}"], f"if{i}", then_branch=then_g,
                                      else_branch=else_g))
        x = "x" if side_by_side else f"y{i}"
    nodes.append(helper.make_node("Sum", [f"y{i}" for i in range(count)] if side_by_side
                                  else [x], ["s"]))
    return helper.make_model(helper.make_graph(
        nodes, "ifs", [vi("x", [1, 4]), vi("c", [], T.BOOL)], [vi("s", [1, 4])]),
        opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize("side_by_side", [False, True])
def test_ifs_are_fenced_reading_each_node_and_edge_a_bounded_number_of_times(monkeypatch,
                                                                             side_by_side):
    """Each fence read every node of the graph (4000 Ifs in a chain: 16k nodes 4000 times);
    then, side by side, each If's control inputs from every earlier tail at every fence, and
    the Sum of them all, up to the first If not yet lowered."""
    read = [0]

    def counted(method):   # the inputs of nodes read, by every step of the build
        def reading(node):
            found = method(node)
            read[0] += len(found)
            return found
        return reading
    for name in ("in_nodes", "in_control_nodes"):
        monkeypatch.setattr(Node, name, counted(getattr(Node, name)))
    _count_fence_reads(monkeypatch, read)
    ge_model = compile_model(_ifs(60, side_by_side))
    edges = sum(len(n.in_nodes()) for n in ge_model.graph)
    assert read[0] < 20 * edges


def test_ifs_side_by_side_have_control_edges_and_fence_reads_linear_in_their_number(
        monkeypatch):
    """Each If not yet lowered is a first after every earlier tail: one edge from each, K^2 in
    all, before its edge waited for the last. And each fence asked the Sum of them all whether
    it is a first, reading its inputs up to the first If not yet lowered (K^2 / 2 reads)."""
    reads = [0]
    _count_fence_reads(monkeypatch, reads)
    edges, read = [], []
    for k in (30, 60):
        reads[0] = 0
        graph = compile_model(_ifs(k, True)).graph
        edges.append(sum(len(n.in_control_anchor.peers) for n in graph))
        read.append(reads[0])
    assert edges[1] <= 2 * edges[0] and 0 < read[1] <= 2 * read[0] + 10


def test_a_first_asked_again_reads_from_the_input_that_stopped_it_only_while_it_is_there():
    """A node not yet a first is asked again from the input that last stopped it; if a control
    input before that one went meanwhile (a lowered node's control edges are dropped with it),
    the inputs have moved up, and it reads them all again."""
    from ge_core.graph import ComputeGraph, GraphUtils, OpDesc
    from ge_core.graph.attr_names import ENGINE
    g = ComputeGraph("g")
    a, m, x, n = (g.add_node(OpDesc(name, "Relu", 1, 1, {ENGINE: "AIcoreEngine"}))
                  for name in "amxn")
    GraphUtils.add_edge(a.out_data_anchor(0), n.in_data_anchor(0))
    for src in (m, x):
        GraphUtils.add_edge(src.out_control_anchor, n.in_control_anchor)
    before, stopped = {a}, {}
    assert not region_fence._first_after(n, before, m, stopped)   # stopped at x, m passed
    GraphUtils.remove_edge(m.out_control_anchor, n.in_control_anchor)
    assert not region_fence._first_after(n, before, m, stopped)   # x is still after the tail
    before.add(x)
    assert region_fence._first_after(n, before, m, stopped)


class _Scanned(list):
    """A control anchor's peers, counting the peers ``in`` scans (up to the one found)."""
    scanned = 0

    def __contains__(self, item):
        found = super().__contains__(item)
        _Scanned.scanned += self.index(item) + 1 if found else len(self)
        return found


def test_ifs_side_by_side_are_fenced_and_validated_scanning_control_lists_linearly(monkeypatch):
    """K Ifs side by side: each first after a fence's tail (an If not yet lowered) is read by
    every earlier tail, so a check per edge that the edge is new scanned a list of up to K
    (K^3 in all; 1333 Loops: 28 s a compile), as did validate's check that each control input
    is listed by its producer, and loading the OM, each control input it links. Sets answer
    now."""
    from ge_core.graph.anchor import InControlAnchor, OutControlAnchor
    for cls in (InControlAnchor, OutControlAnchor):
        def made(anchor, owner, init=cls.__init__):
            init(anchor, owner)
            anchor.peers = _Scanned()
        monkeypatch.setattr(cls, "__init__", made)
    _Scanned.scanned = 0
    ge_model = compile_model(_ifs(60, side_by_side=True))
    edges = sum(len(n.in_nodes()) for n in ge_model.graph)
    assert _Scanned.scanned < 3 * edges


@pytest.mark.parametrize("seed", [3, 7, 11])
@pytest.mark.parametrize("c", [True, False])
def test_random_control_flow_computes_as_onnxruntime_does(seed, c):
    pytest.importorskip("onnxruntime")
    feeds = {"x": np.linspace(-1, 1, 4, dtype=np.float32).reshape(1, 4), "c": np.array(c)}
    assert_agree(run_everywhere(_control_flow_model(seed), feeds))


@pytest.mark.parametrize("c", [True, False])
def test_a_stream_of_many_ifs_is_cut_between_them_and_computes_as_onnxruntime_does(c):
    """A stream is cut only outside its lowered regions (a cut between a jump and its label
    deadlocks), but between two regions it may be: a stream of 250 Ifs in a row, held whole
    from the first label to the last, outgrew its SQ (2048 SQEs) and the model did not load.
    Here, at 13 tasks a stream, ten Ifs in a row are cut between them, and the model computes
    what onnxruntime does."""
    from ge_core.atc import atc
    from ge_core.compiler import CompileOptions
    from ge_core.compiler.model_builder import BuildOptions
    from ge_core.compiler.stream import StreamOptions
    from ge_core.graph.attr_names import LABEL_REGION, STREAM_ID
    from ge_core.om import load_om_bytes, om_bytes
    from ge_core.parser import parse_onnx
    pytest.importorskip("onnxruntime")
    proto = _ifs(10)
    built = atc(parse_onnx(proto), CompileOptions(dump=None),
                BuildOptions(dump=None, stream=StreamOptions(max_task_count=40))).built
    assert len(built.streams.splits) >= 3
    label_streams: dict = {}   # each region's jumps and labels stay on one stream
    for node in built.ge_model.graph:
        if node.type in ("LabelSet", "LabelGotoEx", "LabelSwitchByIndex"):
            label_streams.setdefault(node.op_desc.get_attr(LABEL_REGION), set()).add(
                node.op_desc.get_attr(STREAM_ID))
    assert len(label_streams) == 10 and all(len(s) == 1 for s in label_streams.values())
    assert len(set.union(*label_streams.values())) > 1   # on several streams between them
    feeds = {"x": np.linspace(-1, 1, 4, dtype=np.float32).reshape(1, 4), "c": np.array(c)}
    assert_agree(run_everywhere(proto, feeds, load_om_bytes(om_bytes(built.ge_model))))
