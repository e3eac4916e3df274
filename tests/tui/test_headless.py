"""settle, the headless wait every TUI test and the benchmark stand on: it returns once no
command runs or waits and every pane on screen has read the state it shows (a pane a layout
brings on screen asks for its read as the screen settles, after the answer); it never hangs:
a pane nothing will read, or whose read failed, is a Stuck naming it."""
from __future__ import annotations

import pytest

from workbench.tui.headless import Stuck

from tui_testing import TINY, make_app, run, settle

pytestmark = pytest.mark.asyncio


async def test_settle_waits_for_a_pane_on_screen_that_asks_for_its_read_late():
    """Two idle pauses were taken for the pane having read: one that asks later than that was
    left showing the state before the last answer."""
    app = make_app(TINY)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await run(pilot, "step stage 2")
        passes = app.pane("passes")
        reads, read = [], passes.read
        passes.read = lambda views: reads.append(views) or read(views)
        passes.stale = True   # as a pane a layout put back on screen after it missed answers
        app.set_timer(0.5, lambda: app.refresh_pane(passes))   # its read, asked for late
        await settle(pilot)
        assert len(reads) == 1 and not passes.stale


async def test_a_pane_on_screen_that_nothing_reads_is_a_stuck_naming_it():
    app = make_app(TINY)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        app.pane("passes").stale = True   # and no read of it is asked for
        with pytest.raises(Stuck, match="did not settle in 0.5 s: .*panes shown but not "
                                        "read: passes,"):
            await settle(pilot, timeout=0.5)


async def test_a_pane_whose_read_failed_is_a_stuck_at_once_saying_the_error():
    """A read that raised is not asked for again: waiting the timeout out for it would only
    hide the error behind the minute."""
    app = make_app(TINY)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        passes = app.pane("passes")

        def broken(views):
            raise RuntimeError("a view's bug")
        passes.read = broken
        passes.stale = True   # a pane brought on screen, its read failing
        app.refresh_pane(passes)
        with pytest.raises(Stuck, match=r"settled with panes not read \(internal error in "
                                        r"2 Passes: RuntimeError: a view's bug\)"):
            await settle(pilot)
