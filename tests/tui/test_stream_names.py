"""Streams with one name: `s0/rt1` where GE bound its logical stream 0 to the runtime's stream
1, `rt1` where no GE stream is bound; a hint when streams are off screen; a long wait-for chain
folds at 80x24 so the SQE lists stay in sight."""
from __future__ import annotations

import re

import pytest

from workbench.debugger.stream_names import stream_label
from workbench.tui.device_pane import COLUMN_WIDTH

from tui_testing import DEVRUN, TINY, make_app, press, run, settle

pytestmark = pytest.mark.asyncio


async def test_a_stream_has_one_name_in_every_pane():
    assert stream_label(1, {1: 0}) == "s0/rt1" and stream_label(3) == "rt3"
    app = make_app(TINY)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        await run(pilot, "break distribute", "continue", "delete all", "break sqe", "continue")
        bound = app.views.debugger.run.tracker.bound
        assert bound   # GE's logical streams, bound to the runtime's as tasks go onto them
        grid = app.query_one("#stream-grid")
        heads = ["".join(t for t, _ in grid.lines[0][i:i + 1]).strip()
                 for i in range(0, len(grid.lines[0]), 2)]
        rt, logical = next(iter(bound.items()))
        assert any(h.startswith(f"s{logical}/rt{rt}") for h in heads), heads
        await run(pilot, "where")
        assert re.search(r" > stream (s\d+/)?rt\d+ > SQE ", app.log_pane.text_log.lines[-1].text)
        await run(pilot, "delete all", "continue")
        names = [lane.name for lane in app.pane("timeline").current_lanes()]
        assert f"s{logical}/rt{rt}" in names, names


async def test_streams_off_screen_are_hinted_and_a_long_chain_folds_at_80x24():
    app = make_app(f"{DEVRUN}/deadlock.py")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "f5", "3")   # parked at the deadlock
        device = app.pane("device")
        assert device.data.chain
        columns = len(device.data.columns)
        hint = device.query_one("#device-more")
        if columns > 2:   # two 31-column streams fit in 80 columns
            assert hint.display and f"+{columns - 2} more stream" in str(hint.render())
        faults = device.query_one("#device-faults")
        assert faults.size.height <= max(device.size.height // 3, 3)
        assert device.query_one("#device-streams").size.height >= 4   # the SQE lists show


async def test_a_stop_on_a_stream_brings_its_column_into_view_at_80x24():
    """Stopped at the consumer's blocked wait, the device pane shows the consumer's column,
    not the idle default streams that come first; the hint names the streams left off."""
    app = make_app(f"{DEVRUN}/producer_consumer.py")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await run(pilot, "break wait event", "continue")
        await press(pilot, "3")
        await settle(pilot)
        device = app.pane("device")
        grid, scroll = device.grid, device.query_one("#device-streams")
        blocked = next(c for c in grid.columns if c.state.startswith("blocked"))
        assert grid.stream == blocked.stream and grid.col > 0
        x = grid.col * (COLUMN_WIDTH + 1)
        assert scroll.scroll_x <= x <= scroll.scroll_x + scroll.size.width - COLUMN_WIDTH
        hint = str(device.query_one("#device-more").render())
        assert re.search(r"← \+\d+ more streams? \(left arrow\)", hint)
        await press(pilot, "left")   # picked by hand: it stays until the next stop
        await settle(pilot)
        picked = grid.stream
        assert picked != blocked.stream
        await run(pilot, "info streams")
        assert grid.stream == picked
        await run(pilot, "delete all", "break sqe", "continue")   # a stop on an SQE: that SQE
        task = app.views.debugger.run.parked_at.task
        column, row = grid.selected()
        assert (column.stream, column.window[row].pos) == (task.stream.id, task.pos)


async def test_the_source_pane_names_streams_as_the_device_pane_and_drops_no_stale_note():
    """Its stream column says `producer rt1`, as the device pane's heads (the program's name,
    then the id), not a bare 1; after no program
    for a moment (a restart) and then the same stop, the note over the code is the
    program's place again, not a stale 'no host program'."""
    app = make_app(f"{DEVRUN}/missing_wait.py")
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        await run(pilot, "break sqe", "continue", "continue")
        source = app.pane("source")
        streams = {source.table.line(k).cells[2] for k in source.table.visible_keys}
        assert streams and all(re.fullmatch(r"\w+ rt\d+", s) for s in streams), streams
        where = str(source.query_one("#source-where").render())
        assert where.startswith("missing_wait.py:")
        data = source.data
        source.show(type(data)())   # no program for a moment (a restart), then the same stop
        source.show(data)
        await pilot.pause()
        assert str(source.query_one("#source-where").render()) == where


async def test_at_80x24_the_device_pane_shows_whole_stream_columns_only():
    """Two 31-column streams fit in 80 columns with 16 to spare: scrolled to the last stream,
    the view started 15 columns into the one before, and a sliver of it showed. The view is as
    wide as the whole columns it holds, and every move lands on a column's edge."""
    app = make_app(TINY)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await run(pilot, "break sqe", "continue")   # on the last stream, rt3: scrolled right
        await press(pilot, "3")
        device = app.pane("device")
        grid, scroll = device.grid, device.query_one("#device-streams")
        step = COLUMN_WIDTH + 1
        assert len(grid.columns) > 2 and grid.col == len(grid.columns) - 1
        seen = set()
        for key in ["left"] * len(grid.columns) + ["right"] * len(grid.columns):
            assert scroll.size.width == 2 * step   # two whole columns, no third cut short
            assert scroll.scroll_x % step == 0, (key, scroll.scroll_x)
            first = int(scroll.scroll_x) // step
            assert first <= grid.col < first + 2   # the selected column in view
            seen.add(first)
            await press(pilot, key)
        assert seen == set(range(len(grid.columns) - 1))   # scrolled through them all
