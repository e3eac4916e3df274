"""The issue's scenarios, driven through the app as a user would (keys and command lines) and
checked on what the panes hold: the diff of a constant-folding pass on ResNet-50, stream ids
changing under AssignLogicalStreams, a distributed task landing in its stream's column, label
and notify state while stepping SQEs of a model loop, a deadlock's blocked streams and wait-for
chain, a race's two accesses."""
from __future__ import annotations

import re
from pathlib import Path

import onnx
import pytest
from onnx import helper

from workbench.debugger.outcomes import TableOutcome
from workbench.tui.tree_table import ARROW, UNSET

from tui_testing import DEVRUN, TINY, log_text, make_app, press, run, settle

pytestmark = pytest.mark.asyncio
STREAM = 3   # the graph table's stream id column


def _column(app, stream: int):
    return next(c for c in app.query_one("#stream-grid").columns if c.stream == stream)


def _sync_table(app, title: str) -> TableOutcome:
    return next(t for t in app.pane("device").data.tables
                if isinstance(t, TableOutcome) and t.title == title)


async def test_resnet50_constant_folding_diff_shows_the_removed_constantofshape_lines():
    app = make_app("light:resnet50")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await run(pilot, "break pass ConstantFoldingPass")
        await press(pilot, "f5")            # parked at ConstantFoldingPass's first node
        await press(pilot, "shift+f11")     # finish: the end of InferShapeForPreprocess
        passes = app.pane("passes")
        key = next(k for k, span in passes.spans.items()
                   if span.name == "InferShapeForPreprocess")
        passes.table.focus()
        passes.table.move_to(key)
        await press(pilot, "enter")         # the IR diff, before -> after the pass
        assert passes.diff.style == "diff"
        diff = passes.diff.text
        removed = [line for line in diff.splitlines() if line.startswith("-")
                   and ": ConstantOfShape(" in line]
        assert len(removed) > 100
        assert not any(": ConstantOfShape(" in line for line in diff.splitlines()
                       if line.startswith("+"))


async def test_stepping_through_assign_logical_streams_shows_stream_ids_old_to_new():
    app = make_app(TINY)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await run(pilot, "run-to pass NodeStreamUpdatePass")
        graph = app.pane("graph")
        before = {k: graph.table.line(k).cells[STREAM] for k in graph.table.visible_keys
                  if not k.startswith("graph:")}
        await press(pilot, "f10")           # the pass runs: every node gets its stream id
        marks = graph.table.marks
        changed = {k: cols[STREAM] for k, cols in marks.items() if STREAM in cols}
        assert len(changed) >= 10
        for key, old in changed.items():
            new = graph.table.line(key).cells[STREAM]
            assert old == before[key] != new and re.fullmatch(r"s\d+", new)   # s0: GE's name
        conv = next(k for k in changed if k.endswith("/relu1"))   # relu1: the fused conv
        line = graph.table.render_line(1 + graph.table.visible_keys.index(conv)
                                       - graph.table.top).text
        new = graph.table.line(conv).cells[STREAM]
        # a stream set where there was none shows alone (marked changed); a changed one old→new
        shown = new if changed[conv] == UNSET else f"{changed[conv]}{ARROW}{new}"
        assert f" {shown} " in line and f"{UNSET}{ARROW}" not in line
        assert "cells changed" in graph.summary


async def test_a_distributed_event_record_lands_in_its_stream_column():
    app = make_app(TINY)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await run(pilot, "break distribute type=event_record")
        await press(pilot, "f5")
        d = app.views.debugger
        stream = d.run.parked_at.rt_stream_id
        assert app.pane("device").data.note.startswith("distributing EVENT_RECORD")
        assert not any(e.name.startswith("EventRecord") for e in _column(app, stream).window)
        await run(pilot, "step task")       # the record is on its stream; the next is coming
        window = _column(app, stream).window
        assert window[-1].name.startswith("EventRecord") and window[-1].node.endswith("Send_0")


async def test_stepping_sqes_of_the_label_loop_shows_label_and_notify_state():
    app = make_app(f"{DEVRUN}/label_loop.py")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await run(pilot, "break sqe type=stream_label_switch_by_index")
        await press(pilot, "f5")            # the first switch retired: back to L0
        head = _column(app, 1)
        assert head.state == "ready, at label L0"
        assert [e.name for e in head.window if e.mark == "next"] == ["LabelSet(L0)"]
        assert _column(app, 4).state == "blocked on notify 0 (end of model 0)"
        labels = _sync_table(app, "labels")
        assert ("0", "0", "rt1", "1") in labels.rows and ("0", "1", "rt1", "8") in labels.rows
        assert _sync_table(app, "notifies").rows[0][2] == "clear, 0 records"
        await run(pilot, "delete all", "break sqe type=model_end_graph")
        await press(pilot, "f5", "f10")     # the EndGraph records the model's end notify
        assert _sync_table(app, "notifies").rows[0][2].endswith("1 record")
        assert not _column(app, 4).state.startswith("blocked")


async def test_the_deadlock_sample_shows_the_blocked_stream_and_the_wait_for_chain():
    app = make_app(f"{DEVRUN}/deadlock.py")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await run(pilot, "break fault deadlock")
        await press(pilot, "f5")
        assert _column(app, 2).state == "blocked on event 0"
        chain = app.pane("device").data.chain
        # the streams and the event by the program's names, each stream as the faces name it
        assert chain == ["consumer (rt2) waits at StreamWaitEvent(e0) (task 1, SQE 0 of "
                         "consumer (stream rt2)) for done (event 0), which is never recorded"]
        source = app.pane("source")
        await press(pilot, "6")
        assert source.data.frames[0].line == 24   # synchronize_stream(consumer)
        await press(pilot, "f5")            # the program ends; the fault stays, placed
        assert app.query_one("#status").status.finished
        await press(pilot, "6")             # restored: the device pane reads what it missed
        assert any(f.startswith("deadlock.py:24: deadlock:") for f in
                   app.pane("device").data.faults)


async def test_f5_parks_at_the_deadlock_with_no_breakpoint_set():
    """A fault stops a run by default (gdb's SIGSEGV): F5 on the deadlock program ran it to
    its end, and the blocked stream and the wait-for chain were never shown."""
    app = make_app(f"{DEVRUN}/deadlock.py")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await press(pilot, "f5")
        status = app.query_one("#status").status
        assert status.reason == "fault deadlock" and not status.finished
        assert _column(app, 2).state == "blocked on event 0"
        assert app.pane("device").data.chain[0].startswith("consumer (rt2) waits at StreamWait")
        await press(pilot, "f5")            # on to the end, the fault not met again
        assert app.query_one("#status").status.finished
        assert f"stopped at tick {status.tick}: fault deadlock" in log_text(app)


async def test_a_race_shows_both_accesses():
    app = make_app(f"{DEVRUN}/missing_wait.py")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await run(pilot, "set race-check on", "break fault race")
        await press(pilot, "f5")
        races = app.pane("device").data.races
        assert len(races) == 1
        first, second, where = races[0]
        assert "stream" in first and "stream" in second and first != second
        assert where.startswith("[0x")


def _relu_chain(path: Path, n: int) -> Path:
    nodes = [helper.make_node("Relu", [f"x{i}"], [f"x{i + 1}"], name=f"relu{i}")
             for i in range(n)]
    graph = helper.make_graph(nodes, "chain", [_vi("x0")], [_vi(f"x{n}")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return path


def _vi(name: str) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, [1, 8])


async def test_ctrl_c_interrupts_a_running_continue_and_the_app_stays(tmp_path):
    # A model whose whole run takes seconds (ResNet-50 light runs out before the key, once
    # another test has imported what its compile needs; since stepping got faster, so does a
    # chain of 1500 Relus, within the ~2 s the pilot takes to return from pressing F5; since
    # checkpoints stopped copying the graph, one of 4000 on a quiet worker).
    app = make_app(str(_relu_chain(tmp_path / "chain.onnx", 12000)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f5")
        assert app.busy
        await pilot.press("ctrl+c")
        await settle(pilot)
        status = app.query_one("#status").status
        assert status.reason == "interrupted" and not status.finished
        assert "stopped at tick" in log_text(app)
        await press(pilot, "f10")
        assert app.views.debugger.tick > status.tick
