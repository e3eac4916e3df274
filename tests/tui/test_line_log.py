"""The log's lines follow its width: every line written is wrapped anew when the width changes,
including in the moment between the layout giving the log its new size and the log's Resize
event (a frame drawn then, or a line written then)."""
from __future__ import annotations

import pytest
from rich.text import Text
from textual.app import App, ComposeResult

from workbench.tui.line_log import LineLog

pytestmark = pytest.mark.asyncio

PROSE = ("Each device has its own streams: rt0 is device 0's primary context's default stream, "
         "rt1 the default stream of the context thread 0 created and rt2 the stream it made.")
LATER = "A line written after the layout resized the log and before its Resize event came."


class WatchedLog(LineLog):
    """Records what it would draw as its Resize event arrives (the layout has given it the new
    size, and a frame may be drawn before LineLog's own handler runs), then writes a line there
    as the app's answers may."""
    frames: list[list[str]]

    def on_resize(self) -> None:   # runs before LineLog.on_resize (Textual walks the MRO)
        self.frames.append([self.render_line(y).text.rstrip() for y in range(self.size.height)])
        if self.write_on_resize:
            self.write(Text(LATER))


class LogApp(App):
    def compose(self) -> ComposeResult:
        log = WatchedLog(100, id="log")
        log.frames, log.write_on_resize = [], False
        yield log


def words(rows: list[str]) -> list[str]:
    return " ".join(rows).split()


def rows(log: LineLog) -> list[str]:
    return [line.text.rstrip() for line in log.lines]


async def test_lines_rewrap_when_the_log_narrows_and_widens():
    app = LogApp()
    async with app.run_test(size=(120, 20)) as pilot:
        log = app.query_one(WatchedLog)
        log.write(Text(PROSE))
        await pilot.pause()
        assert len(log.lines) == 2 and words(rows(log)) == PROSE.split()
        for width in (40, 200, 60):
            await pilot.resize_terminal(width, 20)
            await pilot.pause()
            assert all(len(row) <= width for row in rows(log)), (width, rows(log))
            assert words(rows(log)) == PROSE.split()
            assert len(log.lines) == len(Text(PROSE).wrap(app.console, width))
            # what it draws, from the first frame at the new width on: the whole text, uncut
            assert words(log.frames[-1]) == PROSE.split(), (width, log.frames[-1])


async def test_a_line_written_before_the_resize_event_leaves_the_older_lines_rewrapped():
    app = LogApp()
    async with app.run_test(size=(120, 20)) as pilot:
        log = app.query_one(WatchedLog)
        log.write(Text(PROSE))
        await pilot.pause()
        log.write_on_resize = True
        await pilot.resize_terminal(50, 20)
        await pilot.pause()
        assert all(len(row) <= 50 for row in rows(log)), rows(log)
        assert words(rows(log)) == PROSE.split() + LATER.split()
        drawn = [log.render_line(y).text.rstrip() for y in range(log.size.height)]
        assert words(drawn) == PROSE.split() + LATER.split()
