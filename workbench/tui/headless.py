"""Driving the app without a terminal (tests, the benchmark, the README's screenshot): wait
until no command runs or waits and every pane on screen has read the state it shows; time a
key to its answer on the screen. Every wait is bounded: on timeout it raises ``Stuck`` naming
the state the app was in, so a dropped key or a wedged worker is a one-line failure, never a
hang."""
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
    unread = ", ".join(p.PANE_ID for p in _unread(app)) or "none"
    return (f"busy={app.busy}, running {running}, {len(app._queue)} queued, "
            f"{app.answers} answered, panes shown but not read: {unread}, focus on {focused}, "
            f"screen {type(app.screen).__name__}, status {app.views.status()}")


def _unread(app) -> list:
    """The panes on screen that have not read the state they show yet."""
    return [p for p in app._shown_panes() if p.stale]


def _error(app) -> str:
    """The status bar's error line (on the app's own screen, under any modal)."""
    bars = app.screen_stack[0].query("StatusBar") if app.screen_stack else ()
    return bars[0].error if bars else ""


async def settle(pilot: Pilot, timeout: float = TIMEOUT) -> None:
    """Wait until no command runs or waits and every pane on screen has read the state it
    shows: a pane the last answer or layout brought on screen (a resize, a pane maximised or
    restored, one a lesson brought forward) asks for its read as the screen takes the layout,
    after the answer."""
    app = pilot.app
    deadline = time.monotonic() + timeout

    def stuck() -> Stuck:
        return Stuck(f"the app did not settle in {timeout:g} s: {app_state(app)}")

    while True:
        try:
            await asyncio.wait_for(app.workers.wait_for_complete(),
                                   max(0.0, deadline - time.monotonic()))
        except WorkerCancelled:   # an exclusive worker's start cancels the one winding up
            pass
        except asyncio.TimeoutError:
            raise stuck() from None
        try:   # the answer handled, and what it (or a layout) queued: a pane's read
            await asyncio.wait_for(pilot.pause(), max(0.0, deadline - time.monotonic()))
        except asyncio.TimeoutError:
            raise stuck() from None
        if not app.busy and not app._queue:
            if not _unread(app):
                return
            error = _error(app)
            if error.startswith("internal error"):   # a read that failed: none comes again
                raise Stuck(f"the app settled with panes not read ({error}): {app_state(app)}")
        if time.monotonic() > deadline:
            raise stuck()
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
    seen = asyncio.Event()   # awaited, not polled: each poll took the GIL from the worker
    draw = screen._compositor_refresh

    def drawn() -> None:
        draw()
        if app.answers > before:
            seen.set()

    screen._compositor_refresh = drawn   # the frame that puts an update on the terminal
    start, start_cpu = time.perf_counter(), time.process_time()
    try:
        event = events.Key(key, None)
        event.set_sender(app)
        app._driver.send_message(event)
        try:
            await asyncio.wait_for(seen.wait(), timeout)
        except asyncio.TimeoutError:
            raise Stuck(f"{key}: no answer on screen in {timeout:g} s: {app_state(app)}") \
                from None
        return time.perf_counter() - start, time.process_time() - start_cpu
    finally:
        del screen._compositor_refresh
