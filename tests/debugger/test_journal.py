"""The graph's undo journal (ge_core/graph/journal.py): a whole run marked at every resumable
position, then rewound mark by mark from its end, puts every graph object back exactly as it was
at each mark. A write that skips ``touch`` leaves an object as it was later, and fails here."""
from pathlib import Path

import pytest

from debugger_testing import synthetic_target
from ge_core.graph import ComputeGraph, OpDesc
from ge_core.graph.journal import Journal, journaling
from npu_emu.world import World
from workbench.debugger.targets import open_target
from workbench.debugger.targets.program import RunState, run_phases
from workbench.debugger.targets.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
MODELS = sorted(p.name for p in (ROOT / "sample_models").glob("*.onnx"))


def fingerprint(graphs: list[ComputeGraph], parts: list) -> list:
    """Every field of every object of the run's graphs and engine subgraphs (values and descs
    by identity: they are replaced, never changed in place)."""
    family: dict[int, ComputeGraph] = {}
    for g in graphs:
        for member in [g, *g.subgraphs]:
            family.setdefault(id(member), member)
    out: list = [(p.index, p.engine, p.graph, list(p.ctrl_out)) for p in parts]
    for g in family.values():
        e = g.edits
        # the cached order: none, or one that holds (a rewind may put back one computed after
        # the mark, before the first edit: the same order)
        stale = g._order is not None and g._order != g._kahn()
        out.append((g.name, id(g.bus), g._seq, [(k, id(v)) for k, v in g._attrs.items()], stale,
                    g.parent_node, g.parent_graph, list(g._subgraphs), id(e),
                    e.nodes_added, e.nodes_removed, e.edges_linked, e.edges_unlinked,
                    e.attrs_set, e.descs_updated, e.graph_attrs_set, dict(e.types)))
        for n in g._table().values():   # in order, as any reader finds it
            op = n.op_desc
            anchors = [*n.in_data_anchors, *n.out_data_anchors, n.in_control_anchor,
                       n.out_control_anchor]
            out.append((n.seq, n.graph is g, op.node is n, op.name, op.type,
                        [(k, id(v)) for k, v in op.attrs.items()],
                        list(map(id, op.input_descs)), list(map(id, op.output_descs)),
                        list(op.input_names), list(op.output_names), list(op.subgraph_names),
                        [(a.owner is n, a.idx) for a in anchors],
                        [a.peer for a in n.in_data_anchors],
                        [list(a.peers) for a in anchors[len(n.in_data_anchors):]]))
    return out


def _rewound_mark_by_mark(target, every: int = 1) -> None:
    """Marked at each position, checked at every ``every``-th."""
    journal, marks, seen = Journal(), [], [0]
    world = World(target.runtime_config())
    states: list[RunState] = []

    def boundary(position) -> None:
        state = states[0]
        if state.graph is None:
            return
        mark = journal.mark()
        seen[0] += 1
        if seen[0] % every == 1 or every == 1:
            graphs = state.graphs()
            parts = list(state.pipeline.parts) if state.pipeline is not None else []
            marks.append((mark, fingerprint(graphs, parts), graphs, parts))

    with world.entered(), journaling(journal):
        states.append(target.new_state())
        run_phases(target.phases, states[0], world.bus, (0, 0), boundary)
    assert len(marks) >= 3 and len(journal) > 0 and seen[0] >= len(marks)
    for mark, expected, graphs, parts in reversed(marks):
        journal.rewind(mark)
        assert fingerprint(graphs, parts) == expected, f"{target.spec}: rewound to mark {mark}"


@pytest.mark.parametrize("model", MODELS)
def test_rewinding_a_whole_run_mark_by_mark_restores_each_marks_graph(model):
    _rewound_mark_by_mark(open_target(f"sample_models/{model}", ROOT, Settings()))


def test_rewinding_a_synthetic_compile_cut_into_hundreds_of_subgraphs(tmp_path):
    """bench_compile's synthetic graph: Partition, the engines' passes on each of its
    subgraphs and the merge, with positions inside each."""
    _rewound_mark_by_mark(synthetic_target(tmp_path, 300), every=7)


def test_a_redo_returns_to_the_present_and_keeps_the_older_marks():
    journal = Journal()
    with World().entered(), journaling(journal):
        g = ComputeGraph("g")
        a = g.add_node(OpDesc("a", "Relu", 1, 1))
        first = journal.mark()
        a.op_desc.set_attr("x", 1)
        second = journal.mark()
        b = g.add_node(OpDesc("b", "Relu", 1, 1))
        a.out_data_anchor(0).link_to(b.in_data_anchor(0))
        redo = journal.rewind(first, keep=True)
        assert g.find_node("b") is None and a.op_desc.get_attr("x") is None
        assert a.out_data_anchor(0).peers == []
        journal.redo(redo)
        assert g.find_node("b") is b and a.out_data_anchor(0).peers == [b.in_data_anchor(0)]
        journal.rewind(second)   # a mark made before the rewind is good again
        assert g.find_node("b") is None and a.op_desc.get_attr("x") == 1


def test_an_object_made_since_the_mark_is_not_put_back_and_one_made_before_it_is():
    """A rewind restores only what existed at its mark: a node (its desc and anchors) and a
    graph made after it are unreachable from the graph as it was, so their saved states are
    skipped; made between two marks, they are put back on a rewind to the later one."""
    journal = Journal()
    with World().entered(), journaling(journal):
        g = ComputeGraph("g")
        a = g.add_node(OpDesc("a", "Relu", 1, 1))
        first = journal.mark()
        b = g.add_node(OpDesc("b", "Relu", 1, 1))
        sub = ComputeGraph("sub")
        s = sub.add_node(OpDesc("s", "Relu", 1, 1))
        second = journal.mark()
        b.op_desc.set_attr("x", 1)
        s.op_desc.set_attr("x", 1)
        a.out_data_anchor(0).link_to(b.in_data_anchor(0))
        sub.set_attr("y", 2)
        third = journal.mark()
        b.op_desc.set_attr("x", 2)
        journal.rewind(third)   # b existed at this mark: put back
        assert b.op_desc.get_attr("x") == 1
        journal.rewind(second)
        assert b.op_desc.get_attr("x") is None and b.in_data_anchor(0).peer is None
        assert a.out_data_anchor(0).peers == [] and sub.attrs.get("y") is None
        b.op_desc.set_attr("x", 3)
        sub.set_attr("y", 4)
        journal.rewind(first)   # made since: left as they were, the graph as it was
        assert g.find_node("b") is None and a.out_data_anchor(0).peers == []
        assert b.op_desc.get_attr("x") == 3 and sub.attrs.get("y") == 4


def test_a_state_saved_since_the_mark_after_another_is_not_the_one_put_back(monkeypatch):
    """Of an object's states saved since a mark only the oldest is put back (an op desc saved
    at two marks after it). A rewind leaves each object it puts back as last saved before the
    mark, so a state saved after the rewind is told from the first: a rewind further back
    still puts back the older state, not the newer one."""
    journal, put_back = Journal(), []
    restore = OpDesc._restore
    monkeypatch.setattr(OpDesc, "_restore", lambda op, state: put_back.append(
        op.name) or restore(op, state))
    with World().entered(), journaling(journal):
        desc = ComputeGraph("g").add_node(OpDesc("a", "Relu", 1, 1)).op_desc
        marks = []
        for value in "123":   # saved after each of three marks
            marks.append(journal.mark())
            desc.set_output_name(0, value)
        journal.rewind(marks[0])
        assert desc.output_names == [""] and put_back == ["a"]
        first, _ = journal.mark(), journal.mark()
        desc.set_output_name(0, "4")
        journal.rewind(first)   # its only state since, saved after the second mark
        assert desc.output_names == [""]
        desc.set_output_name(0, "5")
        second = journal.mark()
        desc.set_output_name(0, "6")
        journal.rewind(second)
        assert desc.output_names == ["5"]
        desc.set_output_name(0, "7")   # saved again: the state saved before the mark is older
        journal.rewind(first)
        assert desc.output_names == [""]


def test_a_desc_adopted_by_a_new_node_is_logged_and_a_state_saved_before_makes_it_moot(
        monkeypatch):
    """A node made with an existing desc (Partition's, MergeSubgraph's) logs whom the desc
    was held by, with no whole state saved; a rewind puts it back. Where the desc's whole
    state was saved since the mark before it (the engine placement's attribute before
    Partition), that state alone is put back."""
    journal = Journal()
    with World().entered(), journaling(journal):
        g, other = ComputeGraph("g"), ComputeGraph("other")
        a = g.add_node(OpDesc("a", "Relu", 1, 1))
        desc = a.op_desc
        desc.set_attr("kept", 1)
        first = journal.mark()
        desc.set_attr("engine", "AIcoreEngine")   # the engine placement's
        desc.set_attr("kept", 2)
        copy = other.add_node(desc)   # adopted: held by the copy now
        assert desc.node is copy
        journal.rewind(first)
        assert desc.node is a and other.find_node("a") is None
        assert list(desc.attrs.items()) == [("kept", 1)]
        first = journal.mark()
        desc.set_output_name(0, "y")   # saved whole
        journal.mark()
        copy = other.add_node(desc)   # noted, after a state saved since the mark
        put_back = []
        restore = OpDesc._restore
        monkeypatch.setattr(OpDesc, "_restore", lambda op, state: put_back.append(
            type(state).__name__) or restore(op, state))
        journal.rewind(first)
        assert desc.node is a and desc.output_names == [""] and put_back == ["tuple"]


def test_a_deleted_attribute_is_put_back_in_its_place():
    """Set, deleted and added attributes since a mark are put back as they were, in their
    order (the dump's and the OM's)."""
    journal = Journal()
    with World().entered(), journaling(journal):
        desc = ComputeGraph("g").add_node(OpDesc("a", "Relu", 1, 1)).op_desc
        for key in "xyz":
            desc.set_attr(key, 0)
        mark = journal.mark()
        desc.set_attr("y", 1)
        desc.del_attr("x")
        desc.set_attr("w", 2)
        journal.rewind(mark)
        assert list(desc.attrs.items()) == [("x", 0), ("y", 0), ("z", 0)]


def test_a_removed_node_is_mended_by_a_rewind_and_broken_again_by_a_redo():
    """A removal breaks the node's cycles with nothing saved; the rewind's logged removal
    mends them, and a redo (after a kept rewind, a look at an earlier tick) breaks them again:
    the node is gone in the present, and only reference counting is left to free it."""
    journal = Journal()
    with World().entered(), journaling(journal):
        g = ComputeGraph("g")
        a = g.add_node(OpDesc("a", "Relu", 1, 1))
        mark = journal.mark()
        g.remove_node(a)
        anchors = [*a.in_data_anchors, *a.out_data_anchors, a.in_control_anchor,
                   a.out_control_anchor]
        assert {x.owner for x in anchors} == {None} and a.op_desc.node is None
        redo = journal.rewind(mark, keep=True)
        assert g.find_node("a") is a and {x.owner for x in anchors} == {a}
        assert a.op_desc.node is a
        journal.redo(redo)
        assert g.find_node("a") is None and {x.owner for x in anchors} == {None}
        assert a.op_desc.node is None
        journal.rewind(mark)
        assert g.find_node("a") is a and {x.owner for x in anchors} == {a}


def test_a_moved_node_is_moved_back_by_a_rewind_and_lives_on_after_a_redo():
    """A move (Partition's, the merge's) leaves the node whole: the rewind puts it back in its
    graph, and the redo (after a kept rewind) moves it again without breaking its cycles, as
    it would a removed node's: it lives on in the graph it moved to."""
    journal = Journal()
    with World().entered(), journaling(journal):
        g, h = ComputeGraph("g"), ComputeGraph("h")
        a, b = (g.add_node(OpDesc(n, "Relu", 1, 1)) for n in "ab")
        a.out_data_anchor(0).link_to(b.in_data_anchor(0))
        mark = journal.mark()
        g.move_node(b, h)
        anchors = [*b.in_data_anchors, *b.out_data_anchors, b.in_control_anchor,
                   b.out_control_anchor]
        redo = journal.rewind(mark, keep=True)
        assert g.find_node("b") is b and h.find_node("b") is None and b.graph is g
        journal.redo(redo)
        assert g.find_node("b") is None and h.find_node("b") is b and b.graph is h
        assert {x.owner for x in anchors} == {b} and b.op_desc.node is b
        assert b.in_data_anchor(0).peer is a.out_data_anchor(0)
        journal.rewind(mark)
    assert [n.name for n in g.topological_sort()] == ["a", "b"] and len(h) == 0


def test_the_node_tables_logged_changes_rewind_in_order_through_a_kept_rewind():
    """The node table is logged change by change (ComputeGraph._unadd, _unremove,
    _unreplace): removals undone go back in their places, and a reorder's table, put back by
    a kept rewind whose older undos then write to it, is whole again when the redone log is
    rewound for good."""
    journal = Journal()
    with World().entered(), journaling(journal):
        g = ComputeGraph("g")
        a, b, c, d = (g.add_node(OpDesc(n, "Relu", 1, 1)) for n in "abcd")
        mark = journal.mark()
        g.remove_node(b)
        e = g.add_node(OpDesc("e", "Relu", 1, 1))
        g.reorder([e, d, c, a])
        g.remove_node(d)
        after = list(g._table().items())
        redo = journal.rewind(mark, keep=True)
        assert list(g._table()) == ["a", "b", "c", "d"]
        journal.redo(redo)
        assert list(g._table().items()) == after and [n.seq for n in g.nodes] == [0, 2, 3]
        journal.rewind(mark)
    assert [(name, n.seq) for name, n in g._table().items()] == [("a", 0), ("b", 1), ("c", 2),
                                                                ("d", 3)]
    assert [n.name for n in g.topological_sort()] == ["a", "b", "c", "d"]


def test_an_engine_subgraphs_cross_cut_control_edges_rewind():
    # no sample model has a control edge across an engine cut, which Partition notes here
    from ge_core.compiler.graph_partitioner import EngineSubgraph
    journal = Journal()
    with World().entered(), journaling(journal):
        part = EngineSubgraph(0, "AIcoreEngine", ComputeGraph("part"))
        part.add_ctrl_out(("a", "b"))
        mark = journal.mark()
        part.add_ctrl_out(("c", "d"))
        journal.rewind(mark)
    assert part.ctrl_out == [("a", "b")]


def test_a_rewind_past_an_edge_edit_leaves_no_stale_order():
    # only an edge changes after the mark: the graph's cached order must go back too
    journal = Journal()
    with World().entered(), journaling(journal):
        g = ComputeGraph("g")
        a, b, c = (g.add_node(OpDesc(n, "Relu", 1, 1)) for n in "abc")
        g.topological_sort()
        mark = journal.mark()
        c.out_data_anchor(0).link_to(a.in_data_anchor(0))
        assert [n.name for n in g.topological_sort()] == ["b", "c", "a"]
        journal.rewind(mark)
    assert [n.name for n in g.topological_sort()] == ["a", "b", "c"]


@pytest.mark.parametrize("model,settings", [
    ("dynamic_batch.onnx", {"dynamic_batch_size": "1,4"}),   # a pass that adds subgraphs
    ("scan_if.onnx", {}), ("fusion_routes.onnx", {})])
def test_going_back_to_just_after_each_checkpoint_lands_on_a_fresh_runs_trace(model, settings):
    """Each landing re-runs from a rewound graph: its trace hash is a fresh run's at that
    tick, whether the checkpoint was made by the first run or by a re-run."""
    import sys
    sys.path.insert(0, str(ROOT / "tests" / "debugger"))
    from debugger_testing import debugger
    spec = f"sample_models/{model}"
    d = debugger(spec, trace_hash=True, gap=1, **settings)
    fresh = debugger(spec, trace_hash=True, **settings)
    try:
        end = d.run_to_tick(10**9)[-1].tick
        ticks = [c.tick + 1 for c in d.checkpoints.points()]
        want = {}
        for tick in ticks:
            fresh.run_to_tick(tick)
            want[tick] = fresh.run.trace_hash()
        assert len(ticks) >= 5
        for tick in reversed(ticks):   # further back each time
            d.goto(tick)
            assert d.run.trace_hash() == want[tick], tick
        d.goto(end)   # its checkpoints are the re-run's now
        for tick in ticks[1::2]:
            d.goto(tick)
            assert d.run.trace_hash() == want[tick], tick
    finally:
        d.close()
        fresh.close()


def test_what_every_visit_and_edit_reads_keeps_no_dict_a_copy_could_slow():
    """Reading an object's __dict__ (a checkpoint's copy, a journal save) leaves CPython 3.11
    keeping its attributes in a real dict, each later read of the live object dearer: the
    objects a stepped walk reads at every visit and edit keep their fields in slots, and a
    graph saved and put back by the journal has every field again."""
    from ge_core.graph import ComputeGraph, OpDesc
    from ge_core.graph.journal import Journal, journaling
    from ge_core.passes.ge_pass import _Walk
    from workbench.debugger.tracker import Tracker
    g = ComputeGraph("g")
    g.add_node(OpDesc("a", "Relu", 1, 1))
    for obj in (Tracker(), g, g.edits, _Walk(g)):
        assert not hasattr(obj, "__dict__"), type(obj).__name__
    journal = Journal()
    with journaling(journal):
        mark = journal.mark()
        before = g.fields()
        g.set_attr("k", 1)
        g.add_node(OpDesc("b", "Relu", 1, 1))
        journal.rewind(mark)
    assert g.fields().keys() == before.keys() and g.find_node("b") is None \
        and "k" not in g.attrs and g.find_node("a") is not None


def test_a_desc_saved_for_an_attribute_shares_its_lists_until_one_is_written():
    """A desc's saved state holds its lists as they are (most saves are an attribute's), so a
    later write to a list, in that epoch or after a kept rewind's redo, writes a copy: the
    saved state, and the rewind to it, keep the lists as they were."""
    journal = Journal()
    with World().entered(), journaling(journal):
        g = ComputeGraph("g")
        desc = g.add_node(OpDesc("a", "Relu", 1, 1)).op_desc
        names, descs = desc.output_names, desc.input_descs
        first = journal.mark()
        desc.set_attr("engine", "AIcoreEngine")   # saved: the lists shared, not copied
        assert desc.output_names is names
        desc.set_output_name(0, "y")   # the same epoch: copied before the write
        g.find_node("a").add_input()
        assert names == [""] and len(descs) == 1
        second = journal.mark()
        desc.set_attr("kept", 1)   # saved, sharing the lists it has now
        redo = journal.rewind(first, keep=True)
        assert desc.output_names == [""] and len(desc.input_descs) == 1
        journal.redo(redo)
        assert desc.output_names == ["y"] and len(desc.input_descs) == 2
        desc.set_output_name(0, "z")   # after the redo: its lists are the kept state's
        journal.rewind(second)
        assert desc.output_names == ["y"] and desc.get_attr("kept") is None
        journal.rewind(first)
        assert desc.output_names == [""] and desc.get_attr("engine") is None
        assert len(desc.input_descs) == len(desc.input_names) == 1
