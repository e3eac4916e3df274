"""Numbers and words: counts in the singular for one, a constant's stream as `-`, a step's node
delta net over the step, times only for what was not stepped through, addresses in hex, and a
one-line description for every command."""
from __future__ import annotations

import pytest

from tui_testing import TINY, log_text, make_app, press, run, settle

pytestmark = pytest.mark.asyncio


async def test_a_steps_node_delta_is_net_over_the_step():
    """A continue through the whole compile added and removed many temporaries: the summary
    counted each event (`+1716 -1277` on a 132-node graph)."""
    app = make_app(TINY)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await run(pilot, "break distribute", "continue")
        changes = app.views.step_changes()
        state = app.views.debugger.state
        live = {n.name for g in state.graphs() for m in [g, *g.subgraphs] for n in m.all_nodes()}
        summary = app.pane("graph").summary
        added = [n for n in changes.added if n in live]
        removed = [n for n in changes.removed if n not in live]
        assert 0 < len(added) <= len(live) and f"+{len(added)} nodes," in summary, summary
        assert f"-{len(removed)} nodes ({', '.join(removed[:3])}" in summary, summary


async def test_the_ms_column_times_the_passes_stepped_through():
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.deterministic = False   # times on screen (snapshots hide them)
        await press(pilot, *["f10"] * 6, "2")
        passes = app.pane("passes")
        done = [k for k in passes.table.visible_keys
                if k in passes.spans and passes.spans[k].end is not None]
        assert len(done) >= 3
        assert all(passes.table.line(k).cells[4] != "-" for k in done)
