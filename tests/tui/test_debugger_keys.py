"""Keys and mouse as in VS Code, gdb and pudb, and the headless driver the benchmark uses:
every wait bounded; F11 one unit finer once; clicks on the key bar, the pane bar, a row and a
pane's title."""
from __future__ import annotations

import pytest

from workbench.tui.headless import Stuck, key_to_screen
from workbench.tui.status_bar import StatusBar

from tui_testing import TINY, make_app, press, settle

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
