"""Panes never stale or contradictory: the memory plan as soon as AssignMemory made it, every
pane redrawn after a resize, the diff view following the current pass."""
from __future__ import annotations

import pytest

from tui_testing import TINY, make_app, press, run, settle

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
