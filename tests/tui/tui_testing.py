"""Driving the workbench app headless: open it on a target, run keys and command lines, and wait
until the worker has answered and the screen has taken the answer."""
from __future__ import annotations

import asyncio
from pathlib import Path

from textual.worker import WorkerCancelled

from workbench.tui.app import Opening, WorkbenchApp

ROOT = Path(__file__).resolve().parents[2]
TINY = "sample_models/tiny_cnn.onnx"
DEVRUN = "sample_models/devrun"


def make_app(target: str | None = None, lesson: Path | None = None) -> WorkbenchApp:
    opening = Opening(lesson.parent if lesson else ROOT, target=target, lesson=lesson)
    return WorkbenchApp(opening, history_file=None, deterministic=True)


async def settle(pilot) -> None:
    """Until no job runs or waits, and the last answer is on screen."""
    app = pilot.app
    while True:
        try:
            await app.workers.wait_for_complete()
        except WorkerCancelled:   # an exclusive worker's start cancels the one winding up
            pass
        await pilot.pause()
        if not app.busy and not app._queue:
            return
        await asyncio.sleep(0.02)


async def run(pilot, *lines: str) -> None:
    for line in lines:
        pilot.app.run_line(line)
        await settle(pilot)


async def press(pilot, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


def log_text(app) -> str:
    return "\n".join(line.text for line in app.log_pane.text_log.lines)
