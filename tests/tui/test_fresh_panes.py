"""Panes never stale or contradictory: the memory plan as soon as AssignMemory made it, every
pane redrawn after a resize, the diff view following the current pass."""
from __future__ import annotations

import pytest

from tui_testing import ROOT, TINY, make_app, press, run, settle
from workbench.tui.screens import HelpScreen

pytestmark = pytest.mark.asyncio


async def test_the_memory_pane_shows_the_plan_as_soon_as_assign_memory_made_it():
    app = make_app(TINY)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        d = app.views.debugger
        for _ in range(40):   # to the stage after AssignMemory
            await run(pilot, "step stage")
            if d.run.tracker.stage == "InsertSyncNodesByLogicStream":
                break
        assert d.state.built is None and d.state.memory_plan is not None   # mid-build
        memory = app.pane("memory")
        assert memory.view is not None and memory.view.rows
        assert [k for k in memory.table_keys() if not k.startswith("seg:")]
        await run(pilot, "info memory-plan")
        assert "no memory plan yet" not in app.log_pane.text_log.lines[-1].text


async def test_every_pane_redraws_after_a_resize_from_narrow_to_wide():
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "f10", "f10", "f10")
        await pilot.resize_terminal(200, 60)
        await settle(pilot)
        await pilot.pause()
        await settle(pilot)
        passes = app.pane("passes")
        assert passes.display and passes.spans, "the passes pane kept its empty first answer"
        assert not any(p.stale for p in app._shown_panes())


async def test_the_diff_follows_the_current_pass_and_esc_closes_it():
    app = make_app(TINY)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "f10", "f10", "f10", "2")
        passes = app.pane("passes")
        await press(pilot, "enter")                 # the current pass's diff
        first = passes.diff
        assert passes.query_one("#passes-diff").display and first is not None
        await run(pilot, "break pass PrunePass")
        await press(pilot, "f5")
        assert passes.diff is not first and passes.diff.text.startswith("PrunePass"), \
            passes.diff.text
        assert passes.table.size.height >= 5       # the list stays usable beside the diff
        await press(pilot, "escape")
        assert not passes.query_one("#passes-diff").display
        assert app.focused is passes.table
        await press(pilot, "2", "escape")           # maximised: Esc restores as before
        assert app.screen.maximized is None


async def test_the_graph_rows_a_step_keeps_are_the_rows_a_fresh_read_makes():
    """After each pass (nodes folded away, shapes inferred, nodes added, moved, partitioned) the
    graph pane, which makes again only the rows the step touched, shows what reading the whole
    graph anew shows."""
    app = make_app("sample_models/fold_and_infer.onnx")
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        graph, kept = app.pane("graph"), 0
        run_ = app.views.debugger.run
        while not run_.finished and run_.tracker.phase != "load":   # parse, compile, build
            await press(pilot, "f10")
            fresh = type(graph)().read(app.views)
            # in order too: a pass that sorts the graph anew moves rows without an event
            assert graph.table.lines == fresh.lines
            kept += (any(s.made for s in graph._lines.sections)
                     and app.views.step_changes() is not None)
        assert kept > 10   # the rows were carried over, step after step


async def test_the_selected_stream_stays_in_view_when_the_device_pane_is_focused():
    """Lesson 30 at 200x60: at the race, the device pane (brought forward by `info streams`,
    its grid focused) showed the idle rt0 while rt1, the stream selected, was off screen:
    focusing the grid scrolled the grid's middle into view, not the selected column."""
    from workbench.tui.device_pane import COLUMN_WIDTH
    lesson = ROOT / "sample_models" / "lessons" / "30_hunting_sync_bugs.gwb"
    app = make_app(lesson=lesson, allow_programs=True)
    async with app.run_test(size=(200, 60)) as pilot:
        device = app.pane("device")
        seen = []
        for _ in range(14):
            for _ in range(200):
                await settle(pilot)
                if app.lesson_paused or app.lesson.done:
                    break
            grid = device.grid
            view = device.query_one("#device-streams")
            if grid.columns and device.display and view.size.width:
                seen.append(device.data.races != [])
                left = grid.col * (COLUMN_WIDTH + 1)
                assert view.scroll_x <= left <= view.scroll_x + view.size.width - COLUMN_WIDTH, \
                    (app.views.debugger.tick, grid.col, view.scroll_x)
            if app.lesson.done:
                break
            await press(pilot, "space")
        assert True in seen   # the race's stop was among those checked


async def test_a_modal_over_a_maximised_pane_leaves_the_panes_behind_it_hidden():
    """The log maximised, a step made the panes behind it stale, then `?` opened help: the app
    took the panes on the help screen's terms (nothing maximised there), as if every pane were
    on screen, and read them all on each answer; a headless wait for the shown panes never
    ended (the panes behind the maximised log are not on screen, so none reads)."""
    app = make_app(TINY)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "7", "f10", "f10")
        assert app.screen.maximized is app.log_pane
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert set(app._shown_panes()) == {app.log_pane}
        await press(pilot, "escape", "7")
        assert not any(p.stale for p in app._shown_panes())
