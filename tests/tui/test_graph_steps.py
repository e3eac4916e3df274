"""The graph pane after each step shows what a read from nothing shows: the lines it keeps from
the last step and the few it makes again (nodes added, removed, relinked, changed; tones that
come and go) spliced in the graph's order, through engine partitions coming and going, If
bodies in place, opened anchors and a filter."""
from __future__ import annotations

import pytest

from workbench.tui.graph_pane import GraphPane
from workbench.tui.tree_table import ARROW

from tui_testing import TINY, if_model, make_app, press, run, settle

pytestmark = pytest.mark.asyncio


def _from_nothing(pane: GraphPane, views):
    """What a pane that never read before reads now (the app is idle: no command runs)."""
    fresh = GraphPane()
    fresh.expanded = set(pane.expanded)
    return fresh.read(views)


def _assert_as_from_nothing(app, step: int) -> None:
    pane = app.pane("graph")
    data = _from_nothing(pane, app.views)
    table = pane.table
    assert table.lines == data.lines, f"step {step}: the lines differ from a read from nothing"
    assert table.marks == data.marks, f"step {step}: the marks differ"
    assert table.tones == data.tones, f"step {step}: the tones differ"
    assert pane.summary == data.summary, f"step {step}: the summary differs"


async def _open(app, pilot, *keys: str) -> None:
    """Enter on each row: its anchors open under it."""
    table = app.pane("graph").table
    table.focus()
    for key in keys:
        assert table.move_to(key)
        await press(pilot, "enter")
        assert table.line(f"{key}#in 0") is not None


async def _step_through(app, pilot, steps: int) -> dict[str, int]:
    """F10 ``steps`` times (or to the end), comparing after each; what the steps did."""
    seen = {"structural": 0, "cells": 0, "kept": 0, "partitions": 0, "toned": 0}
    pane = app.pane("graph")
    for step in range(steps):
        if app.views.debugger.run.finished:
            break
        before = {line.key: line for line in pane.table.lines}
        await press(pilot, "f10")
        _assert_as_from_nothing(app, step)
        changes = app.views.step_changes()
        if changes is not None and changes.structural:
            seen["structural"] += 1
            # the lines of untouched nodes are the last step's own objects, not made again
            kept = [line for line in pane.table.lines if before.get(line.key) is line]
            seen["kept"] += bool(kept)
            seen["toned"] += any(t in ("added", "relinked") for t in pane.table.tones.values())
        elif changes is not None and changes.changed():
            seen["cells"] += 1
        seen["partitions"] += any(line.group and line.cells[0].startswith("engine partition")
                                  for line in pane.table.lines)
    return seen


async def test_each_step_s_lines_are_those_of_a_read_from_nothing_through_a_compile():
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "step")
        await _open(app, pilot, "tiny_cnn/relu1", "tiny_cnn/fc")   # anchors under rows that move
        seen = await _step_through(app, pilot, 400)
    assert seen["structural"] >= 3 and seen["kept"] >= 3 and seen["toned"] >= 3, seen
    assert seen["cells"] >= 1, seen
    assert seen["partitions"] >= 1, seen   # engine partitions came (and the merge took them)


async def test_a_filter_stays_across_steps_that_move_rows_and_shows_every_match():
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "step")
        table = app.pane("graph").table
        filtered = 0
        for step in range(40):
            table.set_filter("relu")
            await press(pilot, "f10")
            _assert_as_from_nothing(app, step)
            if not table.filter:   # the target's node did not match: moving to it cleared it
                continue
            filtered += 1
            shown = set(table.visible_keys)
            matching = {line.key for line in table.lines
                        if not line.group and "relu" in " ".join(line.cells).lower()}
            assert matching and matching == {k for k in shown if not k.startswith("graph:")}
    assert filtered >= 10


async def test_if_bodies_stay_under_their_node_as_steps_change_the_graph(tmp_path):
    app = make_app(if_model(tmp_path / "if.onnx", before=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "step")
        await _open(app, pilot, "ifg/branch")   # anchors, then the bodies, under it
        seen = await _step_through(app, pilot, 400)
    assert seen["structural"] >= 2, seen


async def test_a_body_holding_a_node_named_as_its_owner_is_drawn_once(tmp_path):
    """Two unnamed Ifs, one in the other's then body: the parser names both If_0. The body is
    drawn once, under the root's If_0, not inside itself for ever (a RecursionError)."""
    import onnx
    from onnx import TensorProto, helper

    def body(nodes, name: str, out: str):
        return helper.make_graph(nodes, name, [],
                                 [helper.make_tensor_value_info(out, TensorProto.FLOAT, [4])])
    inner = helper.make_node("If", ["c"], ["i_out"],
                             then_branch=body([helper.make_node("Relu", ["x"], ["r_out"])],
                                              "inner_then", "r_out"),
                             else_branch=body([helper.make_node("Neg", ["x"], ["n_out"])],
                                              "inner_else", "n_out"))
    outer = helper.make_node("If", ["c"], ["y"], then_branch=body([inner], "outer_then", "i_out"),
                             else_branch=body([helper.make_node("Abs", ["x"], ["a_out"])],
                                              "outer_else", "a_out"))
    graph = helper.make_graph([outer], "nested",
                              [helper.make_tensor_value_info("c", TensorProto.BOOL, []),
                               helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    path = tmp_path / "nested.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    app = make_app(str(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "step stage 2")
        pane = app.pane("graph")
        keys = [line.key for line in pane.table.lines]
        assert "internal error" not in pane.app.query_one("StatusBar").error
        groups = [k for k in keys if k.startswith("graph:")]
        assert len(groups) == len(set(groups)) >= 3, groups
        assert len(keys) == len(set(keys)), "a row drawn twice"
        _assert_as_from_nothing(app, 0)


async def test_a_step_that_only_changes_descs_remakes_the_opened_anchors_with_old_marked():
    """Between two node visits of Prepare's InferShape walk no row moves: the rows of the nodes
    whose descs changed (the Reshape's output, its readers' inputs) are made again, and so are
    their opened anchors', each desc's old text marked."""
    app = make_app("sample_models/fold_and_infer.onnx")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "break node reshape", "continue", "delete all")
        await _open(app, pilot, "fold_and_infer/add_ones", "fold_and_infer/reshape")
        table = app.pane("graph").table
        for step in range(12):
            await run(pilot, "step node")
            _assert_as_from_nothing(app, step)
            changes = app.views.step_changes()
            if ("input", 0) in changes.descs.get("add_ones", {}) and not changes.structural:
                break
        else:
            pytest.fail("no step changed add_ones' input desc alone")
        assert table.line("fold_and_infer/add_ones#in 0").cells[5].startswith("f32[2,12]")
        assert table.marks["fold_and_infer/add_ones#in 0"] == {5: "f32[?,?]"}
        assert table.line("fold_and_infer/reshape#out 0").cells[5].startswith("f32[2,12]")
        assert table.marks["fold_and_infer/reshape"] == {5: "f32[?,?]"}


async def test_a_node_made_another_type_in_place_shows_its_new_type():
    """MergeToStreamMergePass makes the Merge a StreamMerge in place (GE's SetType) and links
    control edges to it: its kept row must not keep saying Merge."""
    app = make_app("sample_models/switch_merge.onnx")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "break pass MergeToStreamMergePass", "continue", "delete all")
        await run(pilot, "finish")
        assert app.views.step_changes().changed()["merge"]["type"] == ("Merge", "StreamMerge")
        _assert_as_from_nothing(app, 0)
        row = app.pane("graph").table.line("switch_merge/merge")
        assert row.cells[1] == "StreamMerge"


def split_model(path) -> str:
    """A Reshape whose shape is folded (unknown at the parse: f32[?,?]) split into a 4 and an 8
    wide output, each read by a Relu: ONNX knows the outputs' widths, not their rows, so
    InferShape changes both of the Split's output descs at one node, from two old texts."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    consts = [numpy_helper.from_array(np.array(v, np.int64), name)
              for name, v in (("two", [2]), ("six", [6]), ("sizes", [4, 8]))]
    nodes = [helper.make_node("Mul", ["six", "two"], ["twelve"], "twelve"),
             helper.make_node("Concat", ["two", "twelve"], ["shape"], "shape", axis=0),
             helper.make_node("Reshape", ["x", "shape"], ["r"], "reshape"),
             helper.make_node("Split", ["r", "sizes"], ["a", "b"], "split", axis=1),
             helper.make_node("Relu", ["a"], ["ya"], "relu_a"),
             helper.make_node("Relu", ["b"], ["yb"], "relu_b")]
    graph = helper.make_graph(
        nodes, "split_two", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
        [helper.make_tensor_value_info(y, TensorProto.FLOAT, None) for y in ("ya", "yb")],
        consts)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return str(path)


async def test_a_node_whose_two_outputs_change_in_one_step_shows_each_output_s_own_old_desc(
        tmp_path):
    """The Split's row marks its output cell with both outputs' old descs, in order (it showed
    the last output's old desc alone, as if it were the whole cell's), each output's anchor
    line its own; the summary counts that one cell once, and the four descs changed: the
    Split's two outputs and its readers' inputs."""
    app = make_app(split_model(tmp_path / "split.onnx"))
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "break node split", "continue", "delete all")
        await _open(app, pilot, "split_two/split")
        pane = app.pane("graph")
        table = pane.table
        for step in range(12):
            await run(pilot, "step node")
            _assert_as_from_nothing(app, step)
            if table.line("split_two/split").cells[5] == "f32[2,4]; f32[2,8]":
                break
        else:
            pytest.fail("no step gave the Split's outputs their shapes")
        assert table.marks["split_two/split"] == {5: "f32[?,4]; f32[?,8]"}
        assert table.marks["split_two/split#out 0"] == {5: "f32[?,4]"}
        assert table.marks["split_two/split#out 1"] == {5: "f32[?,8]"}
        assert table.marks["split_two/relu_b#in 0"] == {5: "f32[?,8]"}   # (not opened)
        await press(pilot, "1")   # the graph pane maximised: the whole cell shows
        row = table.render_line(1 + table.visible_keys.index("split_two/split") - table.top)
        assert f"f32[?,4]; f32[?,8]{ARROW}f32[2,4]; f32[2,8]" in row.text
        assert pane.summary.endswith("last step: 1 cell changed, 4 descs changed (2 in, 2 out)"), \
            pane.summary


async def test_a_step_that_adds_nodes_counts_them_added_not_their_descs_changed(tmp_path):
    """The parse adds every node, linking each input after the node is in the graph (a desc
    update): those rows are all new, counted as added, not as descs changed."""
    app = make_app(split_model(tmp_path / "split.onnx"))
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "step stage")
        changes = app.views.step_changes()
        assert changes.added and any(changes.changed_descs().get(n) for n in changes.added)
        summary = app.pane("graph").summary
        assert f"last step: +{len(changes.added)} nodes" in summary and "changed" not in summary, \
            summary
        # nor are their cells marked as changed, old→new: the row's tone says it is new
        table = app.pane("graph").table
        marked = {k.partition("#")[0].rpartition("/")[2] for k in table.marks}
        assert not marked & set(changes.added), marked & set(changes.added)
