"""Host programs in the app: each bug class (tests/host_bug_classes.py) reported in the log
with its line marked in the source pane; F9 sets a line breakpoint on a source line; ctrl+c
parks a busy-looping program at its next line, and quitting leaves no worker running
(closing a run while it loops: tests/debugger/test_host_debugging.py);
an os._exit in the program ends the run, not the app."""
from __future__ import annotations

import shutil
import sys
import threading
from pathlib import Path

import pytest

from tui_testing import DEVRUN, ROOT, log_text, make_app, press, run, settle

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from host_bug_classes import BUGS, EXPECTED  # noqa: E402

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize("name", list(EXPECTED))
async def test_the_app_reports_each_bug_class_and_marks_its_line(name, tmp_path):
    shutil.copy(BUGS / name, tmp_path / name)
    app = make_app(str(tmp_path / name))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "handle all nostop", "continue")
        log = " ".join(log_text(app).split())   # the log wraps long lines at spaces
        for line in EXPECTED[name][0]:
            assert " ".join(line.split()) in log
        marked = EXPECTED[name][1]
        if marked is not None:
            await press(pilot, "6")   # the source pane
            source = app.pane("source")
            assert marked in {site.line for _, site in source.data.faults if site is not None}


async def test_f9_sets_a_line_breakpoint_on_the_parked_line_and_the_run_stops_there(tmp_path):
    shutil.copy(BUGS / "raise_in_helper.py", tmp_path / "p.py")
    app = make_app(str(tmp_path / "p.py"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "break p.py:13", "continue")
        await press(pilot, "6", "f9")      # the source pane: F9 on the parked line clears it
        d = app.views.debugger
        assert not d.breakpoints
        await press(pilot, "f9")           # and sets it again
        assert [bp.text for bp in d.breakpoints.values()] == ["p.py:13"]
        await run(pilot, "delete all")
        await run(pilot, "break p.py:7 if factor == 0", "continue")
        assert app.pane("source").data.frames[0].line == 7
        await run(pilot, "print values", "up", "info locals")
        assert "values = [1, 2, 3]" in log_text(app) and "data" in log_text(app)


async def test_ctrl_c_parks_a_busy_loop_at_its_next_line_and_quitting_leaves_no_worker(
        tmp_path):
    (tmp_path / "busy.py").write_text("n = 0\nwhile True:\n    n += 1\n")
    app = make_app(str(tmp_path / "busy.py"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f5")
        assert app.busy
        await pilot.press("ctrl+c")
        await settle(pilot)
        status = app.query_one("#status").status
        assert status.reason == "interrupted" and not status.finished
        assert app.views.debugger.host_frames()[0].f_lineno in (2, 3)
        await run(pilot, "step line")      # the next line
        assert app.views.debugger.host_frames()[0].f_lineno in (2, 3)
        await pilot.press("q")
    assert not [t for t in threading.enumerate() if t.name == "gewb-target" and t.is_alive()]


async def test_os_exit_in_the_program_ends_the_run_not_the_app(tmp_path):
    (tmp_path / "bye.py").write_text("import os\nprint('bye')\nos._exit(3)\n")
    app = make_app(str(tmp_path / "bye.py"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "continue")
        assert "error: os._exit(3)\n  exit status 3" in log_text(app)
        await run(pilot, "restart", "continue")
        assert log_text(app).count("exit status 3") == 2


async def test_the_source_pane_marks_the_line_a_blocked_stream_waits_at(tmp_path):
    shutil.copy(BUGS / "forgotten_record.py", tmp_path / "p.py")
    app = make_app(str(tmp_path / "p.py"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "continue")      # parked at the deadlock
        await press(pilot, "6")
        source = app.pane("source")
        assert source.data.waits == {14: "consumer (stream rt2)"}
        assert "stream_wait_event" in (tmp_path / "p.py").read_text().splitlines()[13]
        # each SQE's stream as the device pane's column names it: the program's name, the id
        streams = {source.table.line(k).cells[2] for k in source.table.visible_keys}
        assert "consumer rt2" in streams, streams


async def test_the_timeline_names_a_program_s_streams_and_events_by_its_variables():
    """The timeline said `rt2`, `rt3` and `event 0` where every other pane said `producer
    (stream rt2)` and the `timeline` command `rt2`: the names the program gave them."""
    app = make_app(str(ROOT / DEVRUN / "producer_consumer.py"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "continue")   # to the end
        await press(pilot, "5")
        timeline = app.pane("timeline")
        names = [lane.name for lane in timeline.current_lanes() if lane.stream is not None]
        assert names == ["producer rt2", "consumer rt3"]
        text = "\n".join(timeline.query_one("#timeline-text").texts)
        assert "y_ready (event 0): producer rt2 records at" in text, text
