"""Driving the app without a terminal (tests, the benchmark, the README's screenshot): wait
until no command runs or waits and the last answer is on the screen; time a key to its answer
on the screen. Every wait is bounded: on timeout it raises ``Stuck`` naming the state the app
was in, so a dropped key or a wedged worker is a one-line failure, never a hang."""
from __future__ import annotations

import asyncio
import time

from textual import events
from textual.pilot import Pilot
from textual.worker import WorkerCancelled

TIMEOUT = 60.0   # seconds: far beyond any command of the sample models and the benchmark's


class Stuck(TimeoutError):
    """A wait ran out: the message says what the app was doing."""


def app_state(app) -> str:
    """One line on what the app is doing: for a wait that ran out."""
    job = app._job
    running = job.line if job is not None and job.line is not None else (
        "a read" if job is not None else "nothing")
    focused = type(app.focused).__name__ if app.focused is not None else "nothing"
    return (f"busy={app.busy}, running {running}, {len(app._queue)} queued, "
            f"{app.answers} answered, focus on {focused}, screen {type(app.screen).__name__}, "
            f"status {app.views.status()}")


async def settle(pilot: Pilot, timeout: float = TIMEOUT) -> None:
    app = pilot.app
    deadline = time.monotonic() + timeout
    while True:
        try:
            await asyncio.wait_for(app.workers.wait_for_complete(),
                                   max(0.0, deadline - time.monotonic()))
        except WorkerCancelled:   # an exclusive worker's start cancels the one winding up
            pass
        except asyncio.TimeoutError:
            raise Stuck(f"the app did not settle in {timeout:g} s: {app_state(app)}") from None
        await pilot.pause()
        if not app.busy and not app._queue:
            # a pane shown by the last layout (a resize, a pane brought forward) asks for its
            # first read as the screen settles: idle through a second pause, or wait on it
            await pilot.pause()
            if not app.busy and not app._queue:
                return
        if time.monotonic() > deadline:
            raise Stuck(f"the app did not settle in {timeout:g} s: {app_state(app)}")
        await asyncio.sleep(0.005)


async def key_to_screen(pilot: Pilot, key: str,
                        timeout: float = TIMEOUT) -> tuple[float, float]:
    """Send ``key`` as a terminal would and wait until the command it runs has been answered
    and the screen drawn after the answer: wall and CPU seconds (CPU of every thread). Not
    Pilot.press, which waits for the process to look idle (20 ms at least) after each key.
    The app counts its answers: watching ``busy`` instead misses a step that starts and
    answers between two looks (the wait that hung the benchmark)."""
    app = pilot.app
    screen = app.screen
    before = app.answers
    seen = {"drawn": False}
    draw = screen._compositor_refresh

    def drawn() -> None:
        draw()
        seen["drawn"] = seen["drawn"] or app.answers > before

    screen._compositor_refresh = drawn   # the frame that puts an update on the terminal
    start, start_cpu = time.perf_counter(), time.process_time()
    try:
        event = events.Key(key, None)
        event.set_sender(app)
        app._driver.send_message(event)
        while not seen["drawn"]:
            if time.perf_counter() - start > timeout:
                raise Stuck(f"{key}: no answer on screen in {timeout:g} s: {app_state(app)}")
            await asyncio.sleep(0.0005)
        return time.perf_counter() - start, time.process_time() - start_cpu
    finally:
        del screen._compositor_refresh
