"""Keys and mouse as in VS Code, gdb and pudb, and the headless driver the benchmark uses:
every wait bounded; F11 one unit finer once; clicks on the key bar, the pane bar, a row, a
pane's title, a stream's column and a timeline's lane."""
from __future__ import annotations

import re
from dataclasses import replace

import pytest

from workbench.script.access import Access

from workbench.tui.device_pane import COLUMN_WIDTH, HEADS
from workbench.tui.headless import Stuck, key_to_screen
from workbench.tui.key_bar import KeyBar
from workbench.tui.status_bar import StatusBar

from tui_testing import DEVRUN, TINY, log_text, make_app, press, run, settle

pytestmark = pytest.mark.asyncio


async def test_a_key_to_its_answer_on_screen_counts_each_step_and_never_hangs():
    app = make_app(TINY)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for _ in range(5):   # quick steps: each answered and drawn, none missed
            before = app.views.debugger.tick
            wall, _ = await key_to_screen(pilot, "f10", timeout=20)
            await settle(pilot)
            assert app.views.debugger.tick > before and wall < 20
        # a key that runs no command: a one-line failure naming the state, not a hang
        with pytest.raises(Stuck, match=r"f12: no answer on screen in 0.3 s: busy=False, "
                                        r"running nothing, 0 queued, \d+ answered"):
            await key_to_screen(pilot, "f12", timeout=0.3)


def _status(app) -> str:
    return app.query_one(StatusBar).render().plain


async def test_f11_steps_one_unit_finer_once_and_f10_steps_as_before():
    app = make_app(TINY)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "f10", "f11")
        d = app.views.debugger
        assert app.query_one(StatusBar).status.reason == "step node"   # it stepped a node
        assert "step pass" in _status(app)    # ... and F10's unit is still the pass
        await press(pilot, "f10")
        assert d.granularity == "pass" and app.query_one(StatusBar).status.reason == "step pass"
        await press(pilot, "f11", "shift+f11", "f10")   # into, out: F10 is the pass again
        assert d.granularity == "pass" and app.query_one(StatusBar).status.reason == "step pass"
        await press(pilot, "u")                # one unit coarser, from now on
        assert "step stage" in _status(app)
        await press(pilot, "f10")
        assert d.granularity == "stage" and app.query_one(StatusBar).status.reason == "step stage"


async def test_the_status_bar_says_each_thing_once_and_a_click_on_its_unit_goes_coarser():
    app = make_app(TINY)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "f10", "f10")
        text = _status(app)
        assert text.count("step pass") == 1, text
        await pilot.click("#status", offset=(text.index("step pass") + 2, 0))
        await settle(pilot)
        assert "step stage" in _status(app)


async def test_a_click_on_a_key_of_the_key_bar_runs_it():
    app = make_app(TINY)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        bar = app.query_one(KeyBar)
        x = bar.render().plain.index("F10")
        await pilot.click(KeyBar, offset=(x, 0))
        await settle(pilot)
        assert app.views.debugger.tick > 0
        assert "> step" in log_text(app)


async def test_the_pane_bar_and_a_panes_title_take_clicks_and_a_double_click_opens_a_row():
    app = make_app(TINY)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "f10", "f10", "f10")
        text = app.query_one("#panebar").render().plain
        await pilot.click("#panebar", offset=(text.index("Passes"), 0))
        await settle(pilot)
        assert app.current == "passes"
        passes = app.pane("passes")
        row = next(i for i, k in enumerate(passes.table.visible_keys) if k in passes.spans)
        await pilot.double_click(passes.table, offset=(4, row + 1 - passes.table.top))
        await settle(pilot)
        assert passes.query_one("#passes-diff").display
        span = passes.spans[passes.table.visible_keys[row]]
        assert passes.diff is not None and passes.diff.text.startswith(span.name)
        await pilot.click(passes, offset=(3, 0))   # the title
        await settle(pilot)
        assert app.screen.maximized is passes


@pytest.mark.parametrize("width", [60, 80])
async def test_a_narrow_key_bar_keeps_the_words_of_f5_f10_and_f11(width):
    app = make_app(TINY)
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "f10")
        text = app.query_one(KeyBar).render().plain
        assert "F5 Cont" in text and "F10 Step" in text and "F11 In" in text, text
        assert len(text.rstrip()) <= width, text   # nothing cut off at the end


async def test_log_save_writes_the_log_and_y_copies_the_row_under_the_cursor(tmp_path):
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "f10")
        app.session.base_dir = tmp_path
        app.command_line.value = "log save out.txt"
        await press(pilot, "colon", "enter")
        saved = (tmp_path / "out.txt").read_text()
        assert "> step" in saved and "stopped at tick" in saved
        await press(pilot, "y")   # the graph pane's cursor row
        assert app.clipboard and app.clipboard.split()[0] in saved + app.clipboard
        row = app.pane("graph").table.line(app.pane("graph").table.cursor_key)
        assert app.clipboard.startswith(row.cells[0])


async def test_log_save_where_it_cannot_write_says_why_and_a_served_tab_sends_it_to_the_browser(
        tmp_path):
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.session.base_dir = tmp_path
        (tmp_path / "a_file").write_text("")
        for line in ("log save a_file/under_a_file.txt", "log save /proc/no/such/dir.txt"):
            app.command_line.value = line
            await press(pilot, "colon", "enter")
            said = " ".join(log_text(app).split("error: ")[-1].split())   # (wrapped)
            # the path as typed: it was the absolute one the session's folder made of it
            assert re.fullmatch(rf"{re.escape(line)}: cannot write \(.+\)", said), said
            assert str(tmp_path) not in said
        app.command_line.value = "log save sub/dir/log.txt"   # its folders made, as export's
        await press(pilot, "colon", "enter")
        assert "> target" in (tmp_path / "sub" / "dir" / "log.txt").read_text()
        assert log_text(app).splitlines()[-1].startswith("log saved to sub/dir/log.txt")
        sent = []
        app.deliver_binary = lambda data, save_filename: sent.append((save_filename,
                                                                       data.read()))
        app.session.access = replace(Access.served_tab(tmp_path, frozenset()),
                                     deliver=app._deliver)
        app.command_line.value = "log save served.txt"
        await press(pilot, "colon", "enter")
        assert sent and sent[0][0] == "served.txt" and b"log saved to sub/dir" in sent[0][1]
        assert not (tmp_path / "served.txt").exists()   # the browser's, not the server's disk


async def test_slash_searches_the_focused_pane_and_n_and_shift_n_move_between_matches():
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        # F10 stops at InferShapeForPreprocess and each of its five node passes; the ninth begins
        # OptimizeStage1_2, after ConstantFuseSamePass and CommonSubexpressionEliminationPass
        await press(pilot, *["f10"] * 9, "2")
        passes = app.pane("passes")
        passes.table.focus()
        await press(pilot, "slash", *"pass", "enter")
        first = passes.table.cursor_key
        assert "pass" in " ".join(passes.table.line(first).cells).lower()
        await press(pilot, "n")
        second = passes.table.cursor_key
        assert second != first and app.views.debugger.tick > 0
        tick = app.views.debugger.tick
        await press(pilot, "N")
        assert passes.table.cursor_key == first and app.views.debugger.tick == tick
        await press(pilot, "escape", "n")     # the search is over: n is gdb's next again
        assert app.views.debugger.tick > tick


async def test_a_click_on_a_timeline_lane_or_a_stream_column_selects_that_stream():
    app = make_app(TINY)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        await run(pilot, "break sqe", "continue", "continue", "continue", "continue")
        grid, timeline = app.pane("device").grid, app.pane("timeline")
        lanes = timeline.current_lanes()
        streams = [lane.stream for lane in lanes if lane.stream is not None]
        assert len(streams) >= 2, lanes
        other = next(s for s in streams[1:] if s != grid.stream)
        at = next(i for i, lane in enumerate(lanes) if lane.stream == other)
        await pilot.click("#timeline-text", offset=(2, 1 + at))   # under the time scale
        await settle(pilot)
        assert grid.stream == other and timeline.stream == other
        name = app.query_one("#timeline-text").lines[1 + at][0]
        assert name[0].strip() == lanes[at].name and "reverse" in name[1]
        scroll = app.query_one("#device-streams")   # the column scrolled into view
        assert scroll.scroll_x <= grid.col * (COLUMN_WIDTH + 1) < \
            scroll.scroll_x + scroll.size.width
        await pilot.click(app.pane("device"), offset=(3, 0))   # its title: maximised
        await settle(pilot)
        first = next(i for i, c in enumerate(grid.columns) if len(c.window) >= 2)
        scroll.scroll_to(x=0, animate=False, immediate=True)
        await pilot.pause()
        await pilot.click(grid, offset=(first * (COLUMN_WIDTH + 1) + 3, HEADS + 1))
        await settle(pilot)
        assert app.focused is grid and grid.col == first
        column, row = grid.selected()
        assert column is grid.columns[first] and row == 1   # the SQE clicked
        assert timeline.stream == column.stream             # its lane marked too


async def test_up_and_down_in_the_timeline_pick_the_stream_lane_above_or_below():
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "break sqe", "continue", "continue", "continue", "continue")
        grid, timeline = app.pane("device").grid, app.pane("timeline")
        await press(pilot, "5")   # the timeline (alone at 120 columns), its lanes focused
        await settle(pilot)
        assert app.focused is app.query_one("#timeline-text")
        streams = [lane.stream for lane in timeline.current_lanes() if lane.stream is not None]
        assert len(streams) >= 2, timeline.current_lanes()
        start = streams.index(timeline.stream) if timeline.stream in streams else None
        await press(pilot, "down")
        await settle(pilot)
        at = 0 if start is None else min(start + 1, len(streams) - 1)
        assert timeline.stream == streams[at]
        await press(pilot, "down", "down", "down", "down", "down", "down")
        await settle(pilot)
        assert timeline.stream == streams[-1]   # stops at the last stream lane
        await press(pilot, "up")
        await settle(pilot)
        assert timeline.stream == streams[-2]
        line = next(line for line in app.query_one("#timeline-text").lines[1:]
                    if "reverse" in line[0][1])
        lane = next(lane for lane in timeline.current_lanes() if lane.stream == streams[-2])
        assert line[0][0].strip() == lane.name   # its lane marked, and only its lane
        await press(pilot, "3")   # the device pane, hidden at 120 columns while the lanes
        await settle(pilot)       # were picked, shows the stream picked there
        assert app.pane("device").display
        assert grid.stream == streams[-2] and timeline.stream == streams[-2]


async def test_an_sqe_clicked_while_the_source_pane_is_hidden_has_its_line_marked_there():
    app = make_app(f"{DEVRUN}/devices_and_contexts.py")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "step line", "next line 25")
        source = app.pane("source")
        assert not source.display   # beside the device pane: the log alone
        grid = app.pane("device").grid
        col = max(i for i, c in enumerate(grid.columns) if c.window)   # the last with SQEs
        grid.select_stream(grid.columns[col].stream)   # its column in view
        await pilot.pause()
        await pilot.click(grid, offset=(col * (COLUMN_WIDTH + 1) + 3, HEADS))
        await settle(pilot)
        column, row = grid.selected()
        pos = column.window[row].pos
        await press(pilot, "6")
        assert source.table.cursor_key == f"{column.stream}:{pos}"
        line = source.data.sqes[(column.stream, pos)].site.line
        assert source.marked == line and f"submitted at line {line}" in source.said, source.said
        name = source.data.streams.get(column.stream)   # the stream as a fault names it
        assert f"SQE {pos} of {name + ' (' if name else ''}stream rt{column.stream}" \
            in source.said, source.said
