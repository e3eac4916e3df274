"""`/` finds text in every pane and in the help, n and N go to the next and previous match,
the match is marked where it is drawn, and "no match for X" is said in the log and the status
bar; Esc ends the search. Text selected with the mouse is copied (y, or ctrl+c while no
command runs) to the clipboard, OSC 52."""
from __future__ import annotations

import shutil

import pytest
from textual import events

from workbench.tui.screens import HelpScreen
from workbench.tui.status_bar import StatusBar
from workbench.tui.strip_marks import MATCH_STYLE

from tui_testing import DEVRUN, ROOT, TINY, log_text, make_app, press, run, settle

pytestmark = pytest.mark.asyncio


def marked(widget, y: int) -> str:
    """The text drawn in the match's colours on screen line ``y`` of ``widget``."""
    return "".join(s.text for s in widget.render_line(y)
                   if s.style is not None and s.style.bgcolor == MATCH_STYLE.bgcolor)


async def find(pilot, text: str) -> None:
    await press(pilot, "slash", *text, "enter")


async def test_slash_finds_in_the_help_with_n_and_shift_n_and_says_no_match():
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "question_mark")
        help_text = app.screen.text
        await find(pilot, "reverse-step")
        first = help_text.match
        assert first is not None and help_text.top <= first[0] < help_text.top + \
            help_text.size.height   # in sight
        assert marked(help_text, first[0] - help_text._first()) == "reverse-step"
        await press(pilot, "n")
        second = help_text.match
        assert second != first and "reverse-step" in help_text.lines[second[0]].text
        await press(pilot, "N")
        assert help_text.match == first
        await find(pilot, "no such words")
        assert "no match for no such words in the help" in \
            str(app.screen.query_one("#help-foot").render())
        await press(pilot, "escape")   # the search ends; again: the help closes
        assert isinstance(app.screen, HelpScreen) and help_text.match is None
        await press(pilot, "escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_slash_in_the_device_pane_selects_the_sqe_found_and_marks_it():
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "break sqe", "continue", "continue")
        await press(pilot, "3")
        grid = app.pane("device").grid
        await find(pilot, "maintaince")
        line, start, end = grid.match
        column, row = grid.selected()
        assert "ModelMaintaince" in column.window[row].name   # the SQE found is selected
        assert marked(grid, line).lower() == "maintaince"
        assert "type=model_maintaince" in app.pane("device").breakpoint_spec()   # F9's
        await press(pilot, "n")
        assert grid.match is not None and grid.match != (line, start, end)
        await press(pilot, "N")
        assert grid.match == (line, start, end)
        await press(pilot, "escape")
        assert grid.match is None and marked(grid, line) == ""


async def test_slash_in_the_timeline_marks_the_lane_found():
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "break sqe", *["continue"] * 4)
        await press(pilot, "5")
        lanes = app.pane("timeline").query_one("#timeline-text")
        await find(pilot, "rt")
        line, _, _ = lanes.match
        assert "rt" in lanes.texts[line] and marked(lanes, line) == "rt"
        await press(pilot, "n")
        assert lanes.match[0] != line   # the next lane
        await find(pilot, "no such lane")
        assert lanes.match is None
        said = "no match for no such lane in Timeline"
        assert said in log_text(app) and said in app.query_one(StatusBar).error


async def test_slash_in_the_source_pane_finds_in_the_code_then_in_the_rows(tmp_path):
    shutil.copy(ROOT / DEVRUN / "deadlock.py", tmp_path / "p.py")
    app = make_app(str(tmp_path / "p.py"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "break wait event", "continue")
        await press(pilot, "6")
        source = app.pane("source")
        await find(pilot, "synchronize_stream")
        line = source.found[0]
        assert "synchronize_stream" in source.data.lines[line]
        code = source.query_one("#source-text").content   # the Text drawn
        assert any(code.plain[s.start:s.end] == "synchronize_stream" for s in code.spans
                   if s.style == MATCH_STYLE)
        await press(pilot, "n")   # the second one, in the print below it
        assert source.found[0] > line
        await find(pilot, "StreamWaitEvent")   # not in the code: the submitted rows
        assert source.found is None
        assert "StreamWaitEvent" in " ".join(source.table.line(source.table.cursor_key).cells)


async def test_slash_in_the_log_marks_the_match_and_the_graph_filter_goes_on_with_n():
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "f10", "f10", "7")
        log = app.log_pane.text_log
        await find(pilot, "stopped at")
        assert "stopped at" in log.lines[log.match[0]].text
        assert marked(log, log.match[0] - log._first()) == "stopped at"
        await press(pilot, "escape", "escape", "1", "slash", *"relu", "enter")
        graph = app.pane("graph")
        first = graph.table.cursor_key
        assert "relu" in first.lower()
        await press(pilot, "n")   # the next row the filter left, not gdb's next
        assert graph.table.cursor_key != first and "relu" in graph.table.cursor_key.lower()


async def test_a_mouse_selection_in_the_log_is_copied_by_y_and_ctrl_c():
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "f10")
        log = app.log_pane.text_log
        first = log._first()
        top, below = log.lines[first].text, log.lines[first + 1].text
        await pilot.mouse_down(log, offset=(2, 0))
        await pilot.hover(log, offset=(5, 1))
        await pilot.mouse_up(log, offset=(5, 1))
        await settle(pilot)
        wanted = top.rstrip()[2:] + "\n" + below[:6]   # to the character under the pointer
        assert app.screen.get_selected_text() == wanted
        await press(pilot, "y")
        assert app.clipboard == wanted
        app.copy_to_clipboard("")
        await press(pilot, "ctrl+c")   # no command runs: ctrl+c copies, as in a terminal
        assert app.clipboard == wanted


async def test_the_text_typed_in_a_burst_after_slash_is_the_search_s():
    """As a paste or a quick typist sends it: the letters after `/` are not the letters' keys
    (b set a breakpoint, c continued); in the graph pane they are its filter's."""
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "f10", "f10", "2")
        tick = app.views.debugger.tick
        for key in ("slash", *"bcn"):   # no wait between the keys
            app._driver.send_message(events.Key(key, key if len(key) == 1 else None))
        await settle(pilot)
        assert app.command_line.value == "/bcn" and app.views.debugger.tick == tick
        assert not app.views.debugger.breakpoints
        await press(pilot, "escape", "1")
        for key in ("slash", *"relu"):
            app._driver.send_message(events.Key(key, key if len(key) == 1 else None))
        await settle(pilot)
        assert app.pane("graph").query_one("#graph-filter").value == "relu"
