"""Engine placement and the partition -> merge round trip."""
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ge_core.compiler import graph_partitioner
from ge_core.compiler.engine_placer import EnginePlacer, EnginePlacerError
from ge_core.compiler.graph_partitioner import GraphPartitioner, Merging, Partitioning
from ge_core.executor import HostExecutor, random_feeds
from ge_core.graph import ComputeGraph, OpDesc, dump_graph, validate
from ge_core.graph.attr_names import ENGINE
from ge_core.graph.journal import Journal, journaling
from ge_core.parser import parse_onnx
from npu_emu.world import World

SAMPLE = Path(__file__).resolve().parents[2] / "sample_models" / "tiny_cnn.onnx"


def placed():
    g = parse_onnx(SAMPLE)
    EnginePlacer().run(g)
    return g


def engines(g):
    return {n.name: n.op_desc.get_attr("engine") for n in g}


def test_engines_by_ascending_cost():
    e = engines(placed())
    assert e["conv1"] == e["relu1"] == e["pool1"] == e["fc"] == "AIcoreEngine"
    assert e["residual_add"] == e["softmax"] == "VectorEngine"
    assert e["input"] == e["conv1.w"] == e["flatten"] == e["NetOutput"] == "DNN_VM_GE_LOCAL"


def test_excluding_an_engine_moves_its_ops_to_the_next_cheapest():
    g = parse_onnx(SAMPLE)
    EnginePlacer(exclude=["AIcoreEngine"]).run(g)
    assert engines(g)["conv1"] == "DNN_VM_AICPU"
    with pytest.raises(EnginePlacerError, match="unknown engine.*NoSuchEngine"):
        EnginePlacer(exclude=["NoSuchEngine"])


def test_partition_cuts_at_engine_changes_with_placeholder_end_pairs():
    g = placed()
    parts = GraphPartitioner().partition(g)
    assert len(g) == 0
    for p in parts:
        assert {n.op_desc.get_attr("engine") for n in p.graph
                if n.type not in ("PlaceHolder", "End", "Const")} == {p.engine}
        validate(p.graph)
    # the residual Add (Vector) reads two AI Core tensors through PlaceHolders
    add_part = next(p for p in parts if p.graph.find_node("residual_add"))
    holders = sorted(n.op_desc.get_attr("_peer_label") for n in add_part.graph
                     if n.type == "PlaceHolder")
    assert holders == ["left_relu:0", "right_identity:0"]
    # weights travel with their consumer, so fusions see Const inputs
    conv_part = next(p for p in parts if p.graph.find_node("conv1"))
    assert conv_part.graph.find_node("conv1.w").type == "Const"


def test_merge_restores_an_equivalent_graph():
    reference = placed()
    feeds = random_feeds(reference)
    expected = HostExecutor(reference).run(feeds)
    g = placed()
    parts = GraphPartitioner().partition(g)
    GraphPartitioner().merge(g, parts)
    validate(g)
    assert sorted(n.name for n in g) == sorted(n.name for n in reference)
    got = HostExecutor(g).run(feeds)
    np.testing.assert_array_equal(got["prob"], expected["prob"])


def test_partition_is_deterministic():
    texts = []
    for _ in range(2):
        g = placed()
        parts = GraphPartitioner().partition(g)
        texts.append("".join(dump_graph(p.graph) for p in parts))
    assert texts[0] == texts[1]


def test_partition_and_merge_move_the_nodes_as_they_are():
    """Each node, its desc, anchors and the edges inside its subgraph stay the same objects
    through the cut and the merge (GE's merge moves NodePtrs so; its partition makes a node per
    node on the same desc: graph_partitioner.py); only an edge across a cut is cut, and
    mended."""
    g = placed()
    before = {n.name: (n, n.op_desc, n.in_data_anchors[0] if n.in_data_anchors else None)
              for n in g}
    pool = g.find_node("pool1")
    inside = pool.in_data_anchor(0).peer   # relu1 -> pool1, both AI Core
    assert inside.owner is g.find_node("relu1")
    parts = GraphPartitioner().partition(g)
    for part in parts:
        for n in part.graph:
            if n.type in ("PlaceHolder", "End") or n.name not in before:
                continue
            if n is before[n.name][0]:
                assert n.graph is part.graph and n.op_desc.node is n
    pool_part = next(p for p in parts if p.graph.find_node("pool1") is pool)
    assert pool.in_data_anchor(0).peer is inside and inside.owner.graph is pool_part.graph
    GraphPartitioner().merge(g, parts)
    validate(g)
    for name, (node, desc, anchor) in before.items():
        assert g.find_node(name) is node and node.op_desc is desc and node.graph is g
        if anchor is not None:
            assert node.in_data_anchors[0] is anchor
    assert pool.in_data_anchor(0).peer is inside


def _edges(graph) -> tuple[set, set]:
    data = {(a.owner.name, a.idx, p.owner.name, p.idx)
            for n in graph for a in n.out_data_anchors for p in a.peers}
    ctrl = {(n.name, p.owner.name) for n in graph for p in n.out_control_anchor.peers}
    return data, ctrl


def _random_dag(data) -> ComputeGraph:
    """A DAG of up to 12 ops on three engines, up to 4 constants read anywhere, and up to 6
    control edges between any two nodes (into and out of constants too)."""
    engines = ["AIcoreEngine", "VectorEngine", "DNN_VM_AICPU"]
    g = ComputeGraph("g")
    nodes = []
    for i in range(data.draw(st.integers(0, 4), label="consts")):
        nodes.append(g.add_node(OpDesc(f"c{i}", "Const", 0, 1)))
    for i in range(data.draw(st.integers(1, 12), label="ops")):
        arity = data.draw(st.integers(1, 2))
        op = OpDesc(f"n{i}", "Add" if arity == 2 else "Relu", arity, 1,
                    {ENGINE: data.draw(st.sampled_from(engines))})
        node = g.add_node(op)
        for k in range(arity):   # each input from any node made before it
            src = data.draw(st.sampled_from(nodes)) if nodes else None
            if src is not None:
                src.out_data_anchor(0).link_to(node.in_data_anchor(k))
        nodes.append(node)
    for _ in range(data.draw(st.integers(0, 6), label="control edges") if len(nodes) > 1 else 0):
        a, b = sorted(data.draw(st.lists(st.integers(0, len(nodes) - 1), min_size=2,
                                         max_size=2, unique=True)))
        nodes[a].out_control_anchor.link_to(nodes[b].in_control_anchor)
    return g


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_partition_merged_back_untouched_is_the_graph_it_cut(data):
    """Any DAG of nodes on random engines, with constants read across cuts and control edges
    anywhere (into and out of constants too): cut and merged back with nothing optimised in
    between, it has the same nodes, data edges and control edges."""
    g = _random_dag(data)
    before = ({n.name for n in g}, *_edges(g))
    parts = GraphPartitioner().partition(g)
    assert len(g) == 0
    for p in parts:
        for n in p.graph:   # every edge now inside one subgraph
            assert all(q.owner.graph is p.graph for _, q in n.out_edges())
    GraphPartitioner().merge(g, parts)
    assert ({n.name for n in g}, *_edges(g)) == before
    assert all(n.graph is g for n in g)


def _held(graphs) -> list:
    """What each graph holds, as a rewind must put it back: its nodes in order, each in its
    graph and owning its anchors and desc, and its edges."""
    return [(g.name, [(n.name, n.seq, n.graph is g, n.op_desc.node is n,
                       all(a.owner is n for a in n.anchors())) for n in g], *_edges(g))
            for g in graphs]


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_a_random_cut_and_merge_rewinds_mark_by_mark_and_redoes(data):
    """The journal through the moves (ComputeGraph.move_node), the cut and the mending: marked
    at every position of Partition and the merge, a kept rewind to any mark and its redo, then
    a rewind mark by mark from the end, each find the graphs as they were."""
    journal, marks = Journal(), []
    with World().entered(), journaling(journal), \
            mock.patch.object(graph_partitioner, "POSITION_NODES", 1):
        g = _random_dag(data)
        cut = Partitioning(g)
        for walk in (cut, None):
            if walk is None:
                walk = Merging(g, cut.parts)
            for _ in walk.steps():
                parts = [p.graph for p in cut.parts]
                marks.append((journal.mark(), _held([g, *parts]), parts))
        assert len(g) and marks
        present = _held([g, *(p.graph for p in cut.parts)])
        mark, expected, parts = marks[data.draw(st.integers(0, len(marks) - 1), label="look")]
        redo = journal.rewind(mark, keep=True)
        assert _held([g, *parts]) == expected
        journal.redo(redo)
        assert _held([g, *(p.graph for p in cut.parts)]) == present
        for mark, expected, parts in reversed(marks):
            journal.rewind(mark)
            assert _held([g, *parts]) == expected
