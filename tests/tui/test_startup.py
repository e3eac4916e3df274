"""The collector paused from `gewb tui`'s start to the app's first screen, then back, with
what the start made frozen (startup.py)."""
from __future__ import annotations

import gc
import subprocess
import sys

import pytest

from workbench.tui.startup import pause_collector, resume_collector

from tui_testing import ROOT, TINY, make_app, settle

@pytest.fixture
def collector():
    assert gc.isenabled()
    gc.unfreeze()   # what an earlier test's checkpoint copies froze (debugger/collector.py)
    yield
    resume_collector()   # whatever a failed test left
    gc.unfreeze()
    gc.enable()


@pytest.mark.asyncio
async def test_the_collector_is_paused_until_the_first_screen_then_runs_again(collector):
    pause_collector()
    assert not gc.isenabled()
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.pause()
        assert app.answers == 1 and gc.isenabled()
        assert gc.get_freeze_count() > 0   # the start's objects: skipped by later collections


@pytest.mark.asyncio
async def test_an_app_started_with_the_collector_on_leaves_it_alone(collector):
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert gc.isenabled() and gc.get_freeze_count() == 0


def test_gewb_tui_starts_without_the_facade():
    """The ACL facade (npu_emu.acl, ~7% of the first screen) is a host program's: `gewb tui` on
    a model neither sets it up for its parser nor imports it with the app."""
    code = ("import sys, workbench.cli as cli, workbench.tui.app\n"
            "cli._parser_adders()\n"
            "print([m for m in sys.modules if m.startswith('npu_emu.acl')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT).stdout
    assert out.strip() == "[]"
