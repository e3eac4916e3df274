"""The collector paused from `gewb tui`'s start to the app's first screen, then back, with
what the start made frozen (startup.py)."""
from __future__ import annotations

import gc

import pytest

from workbench.tui.startup import pause_collector, resume_collector

from tui_testing import TINY, make_app, settle

pytestmark = pytest.mark.asyncio


@pytest.fixture
def collector():
    assert gc.isenabled()
    yield
    resume_collector()   # whatever a failed test left
    gc.unfreeze()
    gc.enable()


async def test_the_collector_is_paused_until_the_first_screen_then_runs_again(collector):
    pause_collector()
    assert not gc.isenabled()
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.pause()
        assert app.answers == 1 and gc.isenabled()
        assert gc.get_freeze_count() > 0   # the start's objects: skipped by later collections


async def test_an_app_started_with_the_collector_on_leaves_it_alone(collector):
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert gc.isenabled() and gc.get_freeze_count() == 0
