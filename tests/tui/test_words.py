"""Numbers and words: counts in the singular for one, a constant's stream as `-`, a step's node
delta net over the step, times only for what was not stepped through, addresses in hex, and a
one-line description for every command."""
from __future__ import annotations

import pytest

from tui_testing import DEVRUN, TINY, log_text, make_app, press, run, settle

pytestmark = pytest.mark.asyncio


async def test_a_steps_node_delta_is_net_over_the_step():
    """A continue through the whole compile added and removed many temporaries: the summary
    counted each event (`+1716 -1277` on a 132-node graph), then `-9 nodes (conv1, ...)` and
    `48 relinked` of a graph that had no node before the step. From the start, every row is
    new; from a stop inside the compile, the nodes it removed are named."""
    app = make_app(TINY)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await run(pilot, "break distribute", "continue")
        state = app.views.debugger.state
        live = {n.name for g in state.graphs() for m in [g, *g.subgraphs] for n in m.all_nodes()}
        summary = app.pane("graph").summary
        assert summary.endswith(f"last step: +{len(live)} nodes"), summary
        await run(pilot, "restart", "run-to pass ConvBatchnormFusionPass", "finish")
        changes = app.views.step_changes()
        assert changes.removed and "conv1" in changes.removed
        summary = app.pane("graph").summary
        assert f"-{len(changes.removed)} node" in summary and "conv1" in summary, summary


async def test_the_ms_column_times_the_passes_stepped_through():
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.deterministic = False   # times on screen (snapshots hide them)
        # F10 stops at InferShapeForPreprocess and each of its five node passes; the ninth begins
        # OptimizeStage1_2, after ConstantFuseSamePass and CommonSubexpressionEliminationPass
        await press(pilot, *["f10"] * 9, "2")
        passes = app.pane("passes")
        done = [k for k in passes.table.visible_keys
                if k in passes.spans and passes.spans[k].end is not None]
        assert len(done) >= 3
        assert all(passes.table.line(k).cells[4] != "-" for k in done)


async def test_help_lists_every_command_with_a_line_saying_what_it_does():
    app = make_app(TINY)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await run(pilot, "help")
        rows = [line for line in log_text(app).splitlines() if line.startswith("  diff")]
        assert rows and "The IR diff of the current pass" in rows[0], rows
    from workbench.commands.table import COMMANDS
    for c in COMMANDS.unique():
        assert c.summary and c.summary != c.name and not c.summary.endswith(":"), c.name


async def test_counts_of_one_a_constants_stream_and_a_device_after_the_run():
    app = make_app(TINY)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await press(pilot, "f10")
        summary = app.pane("passes").query_one("#passes-summary").render().plain
        assert summary.startswith("1 pass so far"), summary
        await run(pilot, "break distribute", "continue")
        graph = app.pane("graph")
        const = next(k for k in graph.table.visible_keys if k.endswith("/conv1.w")
                     or k.endswith(".w"))
        assert graph.table.line(const).cells[3] == "-"       # GE's -1: no stream
        titles = [line.cells[0] for line in app.pane("passes").table.lines if line.group]
        assert not any("(1 passes" in t for t in titles), titles


async def test_a_host_program_that_ended_shows_no_streams_yet():
    app = make_app(f"{DEVRUN}/deadlock.py")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "f5", "f5", "3")   # the deadlock, then on to the end
        assert app.views.debugger.run.finished and app.pane("device").data.note
        assert app.query_one("#stream-grid").lines == []      # the note says why


async def test_an_events_addresses_are_in_hex_as_every_other_address():
    from npu_emu.driver.events import MemAlloc
    from workbench.debugger.stream_names import event_text
    assert event_text(MemAlloc(7, 0, 4294970368, 64)) == \
        "MemAlloc device_id=0 addr=0x100000c00 size=64"
