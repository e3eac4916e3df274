"""The app's frame: a target opens, keys run the command table's commands in the worker, the
status bar and the log follow, errors are lines and state (never a crash), the command line and
the palette reach every command, number keys show and maximise panes."""
from __future__ import annotations

import pytest

from workbench.tui.app import Job
from workbench.tui.command_line import CommandLine
from workbench.tui.key_bar import KeyBar
from workbench.tui.palette import _entries
from workbench.tui.status_bar import StatusBar

from tui_testing import TINY, log_text, make_app, press, run, settle

pytestmark = pytest.mark.asyncio


async def test_f10_steps_a_pass_and_the_status_bar_says_where():
    app = make_app(TINY)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "f10", "f10")
        status = app.query_one(StatusBar).status
        assert (status.phase, status.granularity, status.reason) == ("compile", "pass",
                                                                     "step pass")
        assert status.tick == app.views.debugger.tick > 0
        text = log_text(app)
        assert "> step" in text and f"stopped at tick {status.tick}: step pass" in text


async def test_a_finished_run_says_finished_once_in_the_status_bar():
    app = make_app(TINY)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "f5")
        bar = app.query_one(StatusBar)
        assert bar.status.finished and str(bar.render()).count("finished") == 1


async def test_a_bad_command_is_an_error_line_and_the_app_goes_on():
    app = make_app(TINY)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await run(pilot, "stpe")
        assert "error: unknown command 'stpe' (did you mean step?)" in log_text(app)
        assert app.query_one(StatusBar).error.startswith("error: unknown command 'stpe'")
        await press(pilot, "f10")
        assert app.query_one(StatusBar).error == ""
        assert app.views.debugger.tick > 0


async def test_a_worker_that_finishes_as_the_app_closes_starts_nothing():
    """The session's worker may report done after the screens are gone (q while a lesson
    plays): the next queued job is not started, where it raised ScreenStackError."""
    app = make_app(TINY)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
    assert not app.screen_stack
    app._queue.append(Job(line="where"))
    app._next()   # what on_worker_state_changed calls
    assert len(app._queue) == 1


async def test_a_bad_model_ends_its_run_with_an_error_line_and_the_app_goes_on(tmp_path):
    (tmp_path / "bad.onnx").write_bytes(b"not a model at all")
    app = make_app(str(tmp_path / "bad.onnx"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "f10")
        error = app.query_one(StatusBar).error
        assert error.startswith("error: ") and "not a readable ONNX model" in error
        assert "ParseError" not in error and "error: " in log_text(app)
        assert app.check_action("step", ()) is None      # finished: stepping is dimmed
        await run(pilot, f"target {TINY}")
        await press(pilot, "f10")
        assert app.query_one(StatusBar).error == "" and app.views.debugger.tick > 0


async def test_a_host_program_that_raises_ends_with_exit_status_1_in_the_log(tmp_path):
    (tmp_path / "bad.py").write_text('raise RuntimeError("boom")\n')
    app = make_app(str(tmp_path / "bad.py"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await run(pilot, "continue")
        assert "  error: bad.py:1: RuntimeError: boom\n  exit status 1" in log_text(app)
        assert app.query_one(StatusBar).error == "error: bad.py:1: RuntimeError: boom"


async def test_colon_opens_the_command_line_enter_runs_and_leaves_it_escape_leaves_too():
    app = make_app(TINY)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("colon")
        assert isinstance(app.focused, CommandLine)
        await pilot.press(*"step stage", "enter")
        await settle(pilot)
        assert "stopped at tick" in log_text(app) and app.views.debugger.granularity == "stage"
        assert not isinstance(app.focused, CommandLine)   # back in the pane, as in vim
        await pilot.press("colon")
        await pilot.press("s")   # typed into the command line, not a step
        assert app.command_line.value == "s"
        await pilot.press("escape")
        assert not isinstance(app.focused, CommandLine) and app.command_line.value == ""
        await pilot.press("colon")
        await pilot.press(*":next", "enter")   # a `:` typed out of habit is dropped
        await settle(pilot)
        text = log_text(app)
        assert "> next" in text and "error" not in text, text


async def test_tab_completes_from_the_command_table_and_the_live_target():
    app = make_app(TINY)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await run(pilot, "step stage 2")
        await pilot.press("colon", *"print node con", "tab")
        assert app.command_line.value.startswith("print node conv1")


async def test_the_palette_lists_every_command_and_pane():
    app = make_app(TINY)
    async with app.run_test(size=(100, 30)):
        texts = [text for text, _, _ in _entries(app)]
        assert "pane 3: Device" in texts and "command: reverse-step" in texts
        assert len([t for t in texts if t.startswith("pane")]) == 7


async def test_number_keys_show_a_pane_on_a_narrow_screen_and_maximise_on_a_wide_one():
    app = make_app(TINY)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "3")
        assert app.current == "device" and app.pane("device").has_class("-current")
        await press(pilot, "3")
        assert app.screen.maximized is app.pane("device")
        await press(pilot, "escape")
        assert app.screen.maximized is None
    app = make_app(TINY)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        assert all(app.pane(n).region.width > 0 for n in ("graph", "passes", "device"))
        await press(pilot, "2")
        assert app.screen.maximized is app.pane("passes")
        await press(pilot, "2")
        assert app.screen.maximized is None


async def test_keys_that_do_not_apply_are_dimmed():
    app = make_app(TINY)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.check_action("interrupt", ()) is None        # nothing runs
        assert app.check_action("debug", ("reverse",)) is None   # not started
        await press(pilot, "f10")
        assert app.check_action("debug", ("reverse",)) is True


async def test_the_key_bar_fits_80_columns_and_dims_what_does_not_apply():
    app = make_app(TINY)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        bar = app.query_one(KeyBar)
        text = bar.render()
        assert text.cell_len <= 80 and "…" not in text.plain
        for key in ("F5", "F10", "F11", "⇧F11", "F9", "F8", "^C", "q"):
            assert f" {key} " in f" {text.plain}"
        stop = text.plain.index("^C")   # nothing runs: ^C is dim, F10 is not
        assert any(span.start <= stop < span.end and "dim" in str(span.style)
                   for span in text.spans)
        step = text.plain.index("F10")
        assert not any(span.start <= step < span.end and "dim" in str(span.style)
                       for span in text.spans)
        await run(pilot, "continue")            # finished: the stepping keys dim too
        text = bar.render()
        step = text.plain.index("F10")
        assert any(span.start <= step < span.end and "dim" in str(span.style)
                   for span in text.spans)


async def test_keys_typed_right_after_a_colon_reach_the_command_line():
    """As a paste or a quick typist sends them: all queued before the app handles the `:`
    (the letters would otherwise run as the c, n, s, b keys)."""
    from textual import events
    app = make_app(TINY)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for key, char in [("colon", ":"), *[(c, c) for c in "cnsb"], ("colon", ":"),
                          ("l", "l")]:
            event = events.Key(key, char)
            event.set_sender(app)
            app._driver.send_message(event)
        await settle(pilot)
        assert app.focused is app.command_line and app.command_line.value == "cnsb:l"
        assert not app.views.debugger.run.started and not app.views.debugger.breakpoints


async def test_the_views_are_read_with_the_collector_paused_and_it_runs_again_after(monkeypatch):
    """A step's pane rows are made with the cyclic collector paused (its full collections would
    rescan every graph and checkpoint copy), and only then: the app runs on with it."""
    import gc

    from workbench.tui.graph_pane import GraphPane
    seen: list[bool] = []
    read = GraphPane.read

    def probe(self, views):
        seen.append(gc.isenabled())
        return read(self, views)
    monkeypatch.setattr(GraphPane, "read", probe)
    app = make_app(TINY)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert gc.isenabled()   # tests' apps start with it on
        await press(pilot, "f10", "f10")
        assert seen and not any(seen)
        assert gc.isenabled()
