"""The tree table's column widths (measured column by column in C when every row has every
cell, row by row when not) and its tones over lines (what a step did to a row)."""
from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from workbench.tui.tree_table import ARROW, UNSET, Column, TableLine, TreeTable

pytestmark = pytest.mark.asyncio

COLUMNS = [Column("node", 4, 40), Column("type", 4, 20), Column("output", 4, 60)]


class _TableApp(App):
    def compose(self) -> ComposeResult:
        yield TreeTable(COLUMNS)


def _lines(short: bool) -> list[TableLine]:
    lines = [TableLine("g", ("a group title far longer than any cell",), group=True),
             TableLine("g/a", ("a", "Conv2D", "f32[1]"), "g", 1),
             TableLine("g/abcdef", ("abcdef", "Add", "f32[1,2,3,4]"), "g", 1),
             TableLine("g/a#in 0", ("in 0", "", "f32[8,8,8,8]  %abcdef:0"), "g/a", 3)]
    if short:   # a row with fewer cells: measured row by row
        lines.append(TableLine("g/note", ("a longer note than the rest",), "g", 1))
    return lines


@pytest.mark.parametrize("short", [False, True])
async def test_a_column_is_as_wide_as_its_longest_cell_with_indent_and_old_text(short):
    app = _TableApp()
    async with app.run_test(size=(120, 20)):
        table = app.query_one(TreeTable)
        table.set_lines(_lines(short), {"g/a": {1: "MatMulV2"}})
        node = max(len("in 0") + 2 * 3 + 2, len("a longer note than the rest") + 4 if short else 0)
        assert table._widths == [node, len("MatMulV2" + ARROW + "Conv2D"),
                                 len("f32[8,8,8,8]  %abcdef:0")]


async def test_a_cell_set_where_it_had_no_value_shows_the_value_alone_marked_changed():
    app = _TableApp()
    async with app.run_test(size=(120, 20)) as pilot:
        table = app.query_one(TreeTable)
        table.set_lines(_lines(False), {"g/a": {1: UNSET, 2: "f32[2]"}})
        await pilot.pause()
        row = table.render_line(table.visible_keys.index("g/a") + 1)
        text = row.text
        assert f"{UNSET}{ARROW}" not in text and f"f32[2]{ARROW}f32[1]" in text
        changed = table.get_component_rich_style("tree-table--changed")
        conv2d = next(s for s in row if s.text.startswith("Conv2D"))
        assert conv2d.style.color == changed.color   # still shown as a change
        assert table._widths[1] == len("Conv2D")   # no room kept for an old text not shown


async def test_a_tone_over_a_line_draws_the_row_in_it_and_goes_with_the_next_tones():
    app = _TableApp()
    async with app.run_test(size=(120, 20)) as pilot:
        table = app.query_one(TreeTable)
        table.set_lines(_lines(False), tones={"g/abcdef": "added"})
        await pilot.pause()
        added = table.get_component_rich_style("tree-table--added")
        row = table.visible_keys.index("g/abcdef") + 1   # under the header
        assert next(iter(table.render_line(row))).style.color == added.color
        table.update_lines([], {})   # the next step: no tones
        await pilot.pause()
        assert next(iter(table.render_line(row))).style.color != added.color


async def test_a_filter_that_matches_no_row_says_so():
    """A graph filter kept past a compile that folded every node it matched left an empty
    table with nothing on it to say why."""
    app = _TableApp()
    async with app.run_test(size=(120, 20)) as pilot:
        table = app.query_one(TreeTable)
        table.set_lines(_lines(False))
        table.set_filter("no such node")
        await pilot.pause()
        assert table.visible_keys == []
        assert "nothing matches 'no such node'" in table.render_line(1).text
        table.set_filter("abc")
        await pilot.pause()
        assert "nothing matches" not in " ".join(table.render_line(y).text for y in range(4))


async def test_a_table_with_no_rows_yet_shows_its_titles_whole():
    """The source pane's SQE table, empty before the first submit, read `line functi stream`
    in a 118-column pane: an empty table's columns were their minimum widths."""
    app = _TableApp()
    async with app.run_test(size=(120, 20)) as pilot:
        await pilot.pause()
        header = app.query_one(TreeTable).render_line(0).text
        assert header.split() == ["node", "type", "output"]
    table = TreeTable([Column("line", 4, 6), Column("function", 6, 16)])
    assert table._widths == [4, len("function")]
