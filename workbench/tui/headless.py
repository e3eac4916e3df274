"""Driving the app without a terminal (tests, the benchmark, the README's screenshot): wait
until no command runs or waits and the last answer is on the screen."""
from __future__ import annotations

import asyncio

from textual.pilot import Pilot
from textual.worker import WorkerCancelled


async def settle(pilot: Pilot) -> None:
    app = pilot.app
    while True:
        try:
            await app.workers.wait_for_complete()
        except WorkerCancelled:   # an exclusive worker's start cancels the one winding up
            pass
        await pilot.pause()
        if not app.busy and not app._queue:
            return
        await asyncio.sleep(0.005)
