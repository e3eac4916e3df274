"""Coloured diffs: removed lines red, added green, the changed words marked inside a changed
line; side by side from 160 columns."""
from __future__ import annotations

import pytest
from rich.table import Table
from rich.text import Text

from workbench.tui.diff_view import (ADDED, ADDED_WORD, REMOVED, REMOVED_WORD, coloured_diff,
                                     diff_lines)
from workbench.tui.strip_marks import MATCH_STYLE

from tui_testing import TINY, make_app, press, run, settle

DIFF = """--- g before P
+++ g after P ran
@@ -2 +2 @@
-%conv1 : Conv(%x:0, %w:0) stream=-1
+%conv1 : Conv(%x:0, %w:0) stream=0
@@ -5 +4,0 @@
-%dead : Identity(%conv1:0)"""


def _styled(text: Text, style: str) -> list[str]:
    return [text.plain[s.start:s.end] for s in text.spans if str(s.style) == style]


def test_a_changed_line_marks_the_words_that_changed_in_colour():
    out = coloured_diff(DIFF, 80)
    assert isinstance(out, Text)
    lines = out.plain.splitlines()
    assert "-%conv1 : Conv(%x:0, %w:0) stream=-1" in lines and \
        "-%dead : Identity(%conv1:0)" in lines
    assert _styled(out, REMOVED_WORD) == ["-1"] and _styled(out, ADDED_WORD) == ["0"]
    removed = [s for s in out.spans if str(s.style) == REMOVED]
    added = [s for s in out.spans if str(s.style) == ADDED]
    assert any(out.plain[s.start:s.end].startswith("%dead") for s in removed)
    assert added


def test_from_160_columns_the_diff_is_side_by_side():
    table = coloured_diff(DIFF, 160)
    assert isinstance(table, Table) and len(table.columns) == 2
    left, right = table.columns[0]._cells, table.columns[1]._cells
    row = next(i for i, c in enumerate(left) if str(c).startswith("%conv1"))
    assert str(right[row]).endswith("stream=0")
    assert any(str(c).startswith("%dead") for c in left)
    assert (str(left[0]), str(right[0])) == ("--- g before P", "+++ g after P ran")   # once


async def _open_a_changed_pass_diff(app, pilot):
    """Enter on the first pass that changed its graph: its diff opens in the passes pane."""
    passes = app.pane("passes")
    key = next(k for k, s in passes.spans.items() if s.changed and s.end is not None)
    passes.table.focus()
    passes.table.move_to(key)
    await press(pilot, "enter")
    return passes


@pytest.mark.asyncio
async def test_the_passes_pane_shows_a_pass_diff_in_colour_side_by_side_when_maximised():
    app = make_app(TINY)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        await run(pilot, "break distribute", "continue")
        passes = await _open_a_changed_pass_diff(app, pilot)
        shown = passes.query_one("#passes-diff-text").content
        assert isinstance(shown, Text) and any(str(s.style) in (REMOVED, ADDED)
                                               for s in shown.spans)
        await press(pilot, "2")                # maximised: 200 columns
        shown = passes.query_one("#passes-diff-text").content
        assert isinstance(shown, Table)


@pytest.mark.asyncio
async def test_a_pass_that_changed_only_what_the_ir_dump_leaves_out_says_so():
    """AssignByDependencyPass changes the stream subgraphs' streams, not the IR: the tree's
    `changed` says yes, so its diff must not flatly say it changed nothing."""
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "run-to pass NodeStreamUpdatePass")
        await press(pilot, "2")
        passes = app.pane("passes")
        key = next(k for k, s in passes.spans.items() if s.name == "AssignByDependencyPass")
        assert passes.spans[key].changed
        passes.open_pass_diff(key)
        await settle(pilot)
        assert "did not change graph tiny_cnn's IR; the pass reports a change" in \
            passes.diff.text


@pytest.mark.parametrize("width", [80, 160])
def test_a_match_in_the_diff_lines_is_marked_where_it_is_drawn(width):
    """`/` searches the diff as drawn (a row side by side): the match found in diff_lines is
    the text marked in the renderable, unified or side by side."""
    lines = diff_lines(DIFF, width)
    row = next(i for i, line in enumerate(lines) if "%dead" in line)
    start = lines[row].index("%dead")
    out = coloured_diff(DIFF, width, (row, start, start + len("%dead")))
    texts = [out] if isinstance(out, Text) else [c for col in out.columns for c in col._cells]
    marked = [t.plain[s.start:s.end] for t in texts if isinstance(t, Text) for s in t.spans
              if s.style == MATCH_STYLE]
    assert marked == ["%dead"]


@pytest.mark.asyncio
async def test_slash_in_an_open_diff_finds_in_the_diff_and_esc_ends_it():
    app = make_app(TINY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run(pilot, "break distribute", "continue")
        await press(pilot, "2")
        passes = await _open_a_changed_pass_diff(app, pilot)
        await settle(pilot)
        lines = diff_lines(passes.diff.text, passes.size.width)
        await press(pilot, "slash", "%", "enter")   # every IR line names a node: %conv1
        first = passes.match
        assert first is not None and "%" in lines[first[0]]
        shown = passes.query_one("#passes-diff-text").content
        assert any(s.style == MATCH_STYLE for s in shown.spans)
        await press(pilot, "n")
        assert sum(line.count("%") for line in lines) > 1 and passes.match[:2] > first[:2]
        await press(pilot, "escape")   # the search ends; the diff stays
        assert passes.match is None and passes.query_one("#passes-diff").display
        await press(pilot, "escape")   # then Esc closes the diff
        assert not passes.query_one("#passes-diff").display


@pytest.mark.asyncio
async def test_in_a_maximised_passes_pane_esc_closes_the_diff_before_it_restores_the_pane():
    """Esc undoes the innermost thing first: the open diff, then the maximised pane (Textual's
    own Esc restored the pane and left the diff open)."""
    app = make_app(TINY)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        await run(pilot, "run-to pass BatchNormReluFusionPass")
        await press(pilot, "2")
        passes = await _open_a_changed_pass_diff(app, pilot)
        await press(pilot, "f10")   # the diff follows the pass now running
        await settle(pilot)
        running = next(s for s in passes.spans.values() if s.end is None)
        assert passes.query_one("#passes-diff").display and \
            passes.diff.text.startswith(f"{running.name} (so far)")
        await press(pilot, "slash", *"Fusion", "enter")   # (a note, not a diff: the rows)
        assert app._search == "Fusion"
        await press(pilot, "escape")   # the search ends, nothing else
        assert passes.query_one("#passes-diff").display and app.screen.maximized is passes
        await press(pilot, "escape")
        assert not passes.query_one("#passes-diff").display and app.screen.maximized is passes
        assert app.focused is passes.table   # the pass list usable
        await press(pilot, "escape")
        assert app.screen.maximized is None
