"""Driving the app without a terminal (tests, the benchmark, the README's screenshot): wait
until no command runs or waits and the last answer is on the screen; time a key to its answer
on the screen."""
from __future__ import annotations

import asyncio
import time

from textual import events
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


async def key_to_screen(pilot: Pilot, key: str) -> tuple[float, float]:
    """Send ``key`` as a terminal would and wait until the command it runs has been answered
    and the screen drawn after the answer: wall and CPU seconds (CPU of every thread). Not
    Pilot.press, which waits for the process to look idle (20 ms at least) after each key."""
    app = pilot.app
    screen = app.screen
    seen = {"busy": False, "drawn": False}
    draw = screen._compositor_refresh

    def drawn() -> None:
        draw()
        seen["busy"] = seen["busy"] or app.busy
        seen["drawn"] = seen["busy"] and not app.busy

    screen._compositor_refresh = drawn   # the frame that puts an update on the terminal
    start, start_cpu = time.perf_counter(), time.process_time()
    try:
        event = events.Key(key, None)
        event.set_sender(app)
        app._driver.send_message(event)
        while not seen["drawn"]:
            # a command runs at least a thread's round trip: this sees it running
            seen["busy"] = seen["busy"] or app.busy
            await asyncio.sleep(0.0005)
        return time.perf_counter() - start, time.process_time() - start_cpu
    finally:
        del screen._compositor_refresh
