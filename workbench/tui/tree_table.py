"""A virtualised table with collapsible groups (a tree of rows): only the lines on screen are
rendered, so a 20k-node graph scrolls and redraws as fast as a small one. Lines are plain data;
a line's cells the last step changed show ``old→new``. Textual's DataTable measures every cell
of every row when rows change (seconds for 20k rows), which is what this avoids. It keeps its
own top row rather than a scrollable virtual size: a changed virtual size lays the whole screen
out again, every widget redrawn, at each step that adds rows; so no scrollbar either (the header
says which rows are on screen; keys and the wheel scroll)."""
from __future__ import annotations

from dataclasses import dataclass
from operator import add, attrgetter

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region
from textual.message import Message
from textual.widget import Widget
from textual.strip import Strip

from workbench.debugger.views.graph_table import UNSET
from workbench.terminal_text import printable

ARROW = "→"
_KEY, _CELLS, _DEPTH = attrgetter("key"), attrgetter("cells"), attrgetter("depth")


@dataclass(frozen=True, slots=True)
class TableLine:
    key: str
    cells: tuple[str, ...]
    parent: str | None = None   # the group line it belongs to (collapsed: hidden)
    depth: int = 0
    group: bool = False         # a group header: one title cell, collapsible
    tone: str = ""   # "", current, dim, added, relinked, error, selected: a component class

    def __post_init__(self) -> None:   # names come from the model: shown escaped
        object.__setattr__(self, "cells", tuple(printable(c) for c in self.cells))


@dataclass(frozen=True, slots=True)
class Column:
    """A column is as wide as its longest cell while the table has room; short of room it
    gives way, first down to ``max``, then down to ``min``. A ``name`` (a node's, a pass's, an
    engine's: what a user reads a row by) gives way after the other columns have."""
    title: str
    min: int = 4
    max: int = 40
    name: bool = False


class TreeTable(Widget, can_focus=True):
    COMPONENT_CLASSES = {"tree-table--header", "tree-table--cursor", "tree-table--changed",
                         "tree-table--group", "tree-table--current", "tree-table--dim",
                         "tree-table--added", "tree-table--error", "tree-table--selected",
                         "tree-table--relinked"}
    DEFAULT_CSS = """
    TreeTable { height: 1fr; }
    TreeTable > .tree-table--header { text-style: bold; background: $panel; }
    TreeTable > .tree-table--cursor { background: $accent 30%; }
    TreeTable:focus > .tree-table--cursor { background: $accent; color: $text; }
    TreeTable > .tree-table--changed { color: $text-warning; text-style: bold; }
    TreeTable > .tree-table--group { color: $text-secondary; text-style: bold; }
    TreeTable > .tree-table--current { color: $text-success; text-style: bold; }
    TreeTable > .tree-table--dim { color: $text-muted; }
    TreeTable > .tree-table--added { color: $text-success; }
    TreeTable > .tree-table--error { color: $text-error; }
    TreeTable > .tree-table--selected { text-style: reverse; }
    TreeTable > .tree-table--relinked { color: $text-warning; text-style: italic; }
    """
    BINDINGS = [
        Binding("up", "cursor(-1)", show=False), Binding("down", "cursor(1)", show=False),
        Binding("pageup", "page(-1)", show=False), Binding("pagedown", "page(1)", show=False),
        Binding("home", "edge(0)", show=False), Binding("end", "edge(1)", show=False),
        Binding("left", "collapse", show=False), Binding("right", "expand", show=False),
        Binding("enter", "choose", "Open", show=False),
    ]

    class Highlighted(Message):
        def __init__(self, table: TreeTable, key: str | None) -> None:
            super().__init__()
            self.table, self.key = table, key

    class Chosen(Message):
        def __init__(self, table: TreeTable, key: str) -> None:
            super().__init__()
            self.table, self.key = table, key

    def __init__(self, columns: list[Column], **kwargs) -> None:
        super().__init__(**kwargs)
        self.columns = columns
        self.lines: list[TableLine] = []
        self.marks: dict[str, dict[int, str]] = {}   # key -> column -> the old text
        # key -> a tone over the line's own: what a step did to a row, which the next step
        # takes away from thousands of rows without making their lines again
        self.tones: dict[str, str] = {}
        self.collapsed: set[str] = set()              # membership only
        self.filter = ""
        self.cursor = 0
        self.top = 0                    # the first visible row on screen
        self._index: dict[str, int] = {}
        self._visible: list[int] = []
        self._vindex: dict[str, int] = {}     # key -> its place among the visible rows
        self._widths: list[int] = [max(c.min, len(c.title)) for c in columns]   # titles whole
        # rendered rows by what they show (a step changes few of them, a relayout none), and
        # the component styles
        self._strips: dict[tuple, Strip] = {}
        self._styles: dict[str, Style] = {}
        self._base: Style | None = None   # rich_style walks the ancestors: once per restyle
        self._laid_out: tuple[tuple[int, ...], int, list[int]] = ((), -1, [])
        self._drawn: dict[int, tuple] = {}   # screen row -> the key of what it shows

    # -- data ----------------------------------------------------------------------------------
    def set_lines(self, lines: list[TableLine], marks: dict[str, dict[int, str]] | None = None,
                  keep: str | None = None, tones: dict[str, str] | None = None) -> None:
        """All lines anew; the cursor stays on ``keep`` (or the line it was on) if still there."""
        keep = keep if keep is not None else self.cursor_key
        self.lines = lines
        self.marks = marks or {}
        self.tones = tones or {}
        self._index = dict(zip(map(_KEY, lines), range(len(lines))))   # in C: 20k lines a step
        self._recompute(keep)

    def update_lines(self, lines: list[TableLine], marks: dict[str, dict[int, str]],
                     tones: dict[str, str] | None = None) -> None:
        """Replace lines in place (same keys, same places): a step that changed cells only."""
        for line in lines:
            i = self._index.get(line.key)
            if i is not None:
                self.lines[i] = line
        self.marks = marks
        self.tones = tones or {}
        self._measure()
        self.refresh_rows()

    def find(self, text: str, step: int = 1) -> bool:
        """The cursor to the next shown line (``step`` -1: the previous) whose cells hold
        ``text``, from the cursor round; False if none does."""
        needle, n = text.lower(), len(self._visible)
        for k in range(1, n + 1):
            i = (self.cursor + step * k) % n
            if any(needle in c.lower() for c in self.lines[self._visible[i]].cells):
                self._set_cursor(i)
                return True
        return False

    def set_filter(self, text: str) -> None:
        self.filter = text.lower()
        self._recompute(self.cursor_key)

    @property
    def cursor_key(self) -> str | None:
        if 0 <= self.cursor < len(self._visible):
            return self.lines[self._visible[self.cursor]].key
        return None

    @property
    def visible_keys(self) -> list[str]:
        return [self.lines[i].key for i in self._visible]

    def line(self, key: str) -> TableLine | None:
        i = self._index.get(key)
        return self.lines[i] if i is not None else None

    def move_to(self, key: str) -> bool:
        """Put the cursor on ``key``, opening the groups it is in and clearing a filter that
        hides it."""
        i = self._index.get(key)
        if i is None:
            return False
        shown = self._vindex.get(key)
        if shown is not None:   # on screen already: only the cursor moves
            self._set_cursor(shown)
            return True
        parent = self.lines[i].parent
        while parent is not None:
            self.collapsed.discard(parent)
            j = self._index.get(parent)
            parent = self.lines[j].parent if j is not None else None
        if self.filter and not self._matches(self.lines[i]):
            self.filter = ""
        self._recompute(key)
        return True

    def _matches(self, line: TableLine) -> bool:
        return any(self.filter in c.lower() for c in line.cells)

    def _shown(self) -> list[int]:
        """The lines a filter or collapsed groups leave shown."""
        shown: dict[str, bool] = {}
        visible = []
        wanted = set()   # membership only: groups holding a line the filter matches
        if self.filter:
            for line in self.lines:
                if not line.group and self._matches(line):
                    parent = line.parent
                    while parent is not None and parent not in wanted:
                        wanted.add(parent)
                        j = self._index.get(parent)
                        parent = self.lines[j].parent if j is not None else None
        matched = set()   # membership only: rows shown by the filter (their detail lines too)
        for i, line in enumerate(self.lines):
            ok = line.parent is None or (shown.get(line.parent, True)
                                         and line.parent not in self.collapsed)
            if line.group:
                shown[line.key] = ok
            if ok and self.filter:
                ok = line.key in wanted if line.group else (
                    line.parent in matched or self._matches(line))
                if ok and not line.group:
                    matched.add(line.key)
            if ok:
                visible.append(i)
        return visible

    def _recompute(self, keep: str | None) -> None:
        if not self.filter and not self.collapsed:   # every line shown: 20k at a big step
            visible = list(range(len(self.lines)))
        else:
            visible = self._shown()
        self._visible = visible
        index = self._vindex = self._index if len(visible) == len(self.lines) else {
            self.lines[i].key: n for n, i in enumerate(visible)}
        self.cursor = index.get(keep, min(self.cursor, max(len(visible) - 1, 0))) \
            if keep is not None else 0
        self._measure()
        self._scroll_to_cursor()
        self.refresh_rows()

    def _measure(self) -> None:
        """The columns' widths from the first 3000 shown rows (a 20k-node graph: each step),
        column by column in C (a row short of cells, padded: an empty cell is no wider)."""
        lines, marks = self.lines, self.marks
        rows = [line for line in map(lines.__getitem__, self._visible[:3000]) if not line.group]
        longest = [len(col.title) for col in self.columns]
        n = len(longest)
        indent = [2 * d + 2 for d in map(_DEPTH, rows)]   # the first column's, by depth
        cells = [c if len(c) >= n else (*c, *[""] * (n - len(c))) for c in map(_CELLS, rows)]
        for c, column in zip(range(n), zip(*cells)):
            widths = map(add, map(len, column), indent) if c == 0 else map(len, column)
            longest[c] = max(longest[c], max(widths))
        for line in rows if marks else ():   # a changed cell shows its old text too
            for c, old in marks.get(line.key, {}).items():
                if c < len(line.cells) and c < n and old != UNSET:
                    width = len(line.cells[c]) + (2 * line.depth + 2 if c == 0 else 0)
                    longest[c] = max(longest[c], width + len(old) + 1)
        self._widths = [max(col.min, n) for col, n in zip(self.columns, longest)]

    @property
    def rows_on_screen(self) -> int:
        return max(self.size.height - 1, 1)

    def scroll_rows(self, delta: int) -> None:
        top = max(0, min(self.top + delta, len(self._visible) - self.rows_on_screen))
        if top != self.top:
            self.top = top
            self.refresh_rows()

    def on_resize(self, event: events.Resize) -> None:
        # the rows were drawn at the new size before this event came: if the top row moves
        # (a table filled while hidden, at one row high), they are drawn again
        top = self.top
        self._scroll_to_cursor()
        if self.top != top:
            self.refresh()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self.scroll_rows(3)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self.scroll_rows(-3)

    # -- moving ---------------------------------------------------------------------------------
    def _scroll_to_cursor(self) -> None:
        rows = self.rows_on_screen
        if self.cursor < self.top:
            self.top = self.cursor
        elif self.cursor >= self.top + rows:
            self.top = self.cursor - rows + 1
        self.top = max(0, min(self.top, len(self._visible) - rows))

    def _set_cursor(self, n: int) -> None:
        n = max(0, min(n, len(self._visible) - 1))
        if n != self.cursor:
            self.cursor = n
            self._scroll_to_cursor()
            self.refresh_rows()
            self.post_message(self.Highlighted(self, self.cursor_key))

    def action_cursor(self, delta: int) -> None:
        self._set_cursor(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self._set_cursor(self.cursor + direction * max(self.size.height - 2, 1))

    def action_edge(self, end: int) -> None:
        self._set_cursor(len(self._visible) - 1 if end else 0)

    def action_collapse(self) -> None:
        key = self.cursor_key
        line = self.line(key) if key else None
        if line is None:
            return
        if line.group and key not in self.collapsed:
            self.collapsed.add(key)
        elif line.parent is not None:
            self.collapsed.add(line.parent)
            key = line.parent
        self._recompute(key)

    def action_expand(self) -> None:
        key = self.cursor_key
        if key is not None and key in self.collapsed:
            self.collapsed.discard(key)
            self._recompute(key)

    def action_choose(self) -> None:
        key = self.cursor_key
        line = self.line(key) if key else None
        if line is None:
            return
        if line.group:
            self.collapsed.symmetric_difference_update({key})
            self._recompute(key)
        else:
            self.post_message(self.Chosen(self, key))

    def on_click(self, event: events.Click) -> None:
        """A click puts the cursor on the row; a double-click opens it, as Enter."""
        if event.y >= 1:
            self._set_cursor(self.top + event.y - 1)
            if event.chain == 2:
                self.action_choose()

    # -- drawing --------------------------------------------------------------------------------
    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = self._styles[name] = self.get_component_rich_style(f"tree-table--{name}")
        return style

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._strips.clear()
        self._base = None

    def on_focus(self) -> None:
        self._strips.clear()   # the cursor's style follows the focus

    def on_blur(self) -> None:
        self._strips.clear()

    def _column_widths(self, width: int) -> list[int]:
        """The widths the cells need when the table has room, and the last column takes what
        is left: the columns follow the width the pane gets. Short of room, the columns give
        way in turns, each turn the widest first: the others down to their max, the names
        down to theirs, the last column down to its min, the others down to theirs, the
        names last."""
        widths = list(self._widths)
        last = len(widths) - 1
        excess = sum(widths) + last - width
        if excess <= 0:
            widths[-1] -= excess
            return widths
        others = [i for i, c in enumerate(self.columns) if not c.name]
        names = [i for i, c in enumerate(self.columns) if c.name]
        turns = ((others, "max"), (names, "max"), ([last], "min"), (others, "min"),
                 (names, "min"))
        for which, bound in turns:
            floors = {i: getattr(self.columns[i], bound) for i in which}
            while excess > 0:
                # the widest, not the one furthest above its floor: a 35-letter node name
                # gives way before a 15-letter engine is cut
                widest = max(((widths[i], -i) for i, floor in floors.items() if widths[i] > floor),
                             default=None)
                if widest is None:
                    break
                widths[-widest[1]] -= 1
                excess -= 1
        return widths

    def _row_key(self, y: int) -> tuple:
        """What screen row ``y`` shows, as a key: equal keys draw equal strips."""
        width = self.size.width
        widths = self._widths_for(width)
        n = self.top + y - 1 if y else -1
        if n < 0:
            return ("header", self.top, self.rows_on_screen, len(self._visible), widths)
        if n < len(self._visible):
            line = self.lines[self._visible[n]]
            marks = self.marks.get(line.key)
            return (line, tuple(sorted(marks.items())) if marks else (), n == self.cursor,
                    line.group and line.key in self.collapsed, self.tones.get(line.key), widths)
        if n == 0 and self.filter and self.lines:   # rows there are, none of them a match
            return ("nothing", self.filter, width)
        return ("blank", width)

    def refresh_rows(self) -> None:
        """Redraw only the screen rows whose content changed (a step changes few)."""
        width = self.size.width
        for y in range(self.size.height):
            if self._drawn.get(y) != self._row_key(y):
                self.refresh(Region(0, y, width, 1))

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        n = self.top + y - 1 if y else -1
        key = self._drawn[y] = self._row_key(y)
        strip = self._strips.get(key)
        if strip is None:
            if len(self._strips) > 20_000:
                self._strips.clear()
            strip = self._strips[key] = self._render_row(n, width, list(self._widths_for(width)))
        return strip

    def _widths_for(self, width: int) -> tuple[int, ...]:
        if self._laid_out[:2] != (tuple(self._widths), width):
            self._laid_out = (tuple(self._widths), width, self._column_widths(width))
        return tuple(self._laid_out[2])

    def _render_row(self, n: int, width: int, widths: list[int]) -> Strip:
        """Row ``n`` of the visible rows (-1: the header)."""
        if self._base is None:
            self._base = self.rich_style
        base = self._base
        if n < 0:
            text = " ".join(c.title.ljust(w)[:w] for c, w in zip(self.columns, widths))
            rows = len(self._visible)
            if rows > self.rows_on_screen:   # where the screen is in the rows
                first = self.top + 1
                where = f" {first}-{min(first + self.rows_on_screen - 1, rows)}/{rows}"
                text = text[:max(width - len(where), 0)].ljust(width - len(where)) + where
            return Strip([Segment(text.ljust(width)[:width], base + self._style("header"))])
        if n >= len(self._visible):
            if n == 0 and self.filter and self.lines:
                said = printable(f"nothing matches {self.filter!r}: / changes the filter")
                return Strip([Segment(said.ljust(width)[:width], base + self._style("dim"))])
            return Strip.blank(width, base)
        line = self.lines[self._visible[n]]
        tone = self.tones.get(line.key, line.tone)
        style = base + self._style(tone) if tone else base
        if line.group:
            sign = "▸ " if line.key in self.collapsed else "▾ "
            segs = [Segment(("  " * line.depth + sign + line.cells[0]).ljust(width)[:width],
                            style + self._style("group"))]
        else:
            segs = self._cells(line, widths, style)
        if n == self.cursor:
            cursor = self._style("cursor")
            segs = [Segment(s.text, (s.style or base) + cursor) for s in segs]
        return Strip(segs).adjust_cell_length(width, base)

    def _cells(self, line: TableLine, widths: list[int], style: Style) -> list[Segment]:
        segs = []
        marks = self.marks.get(line.key, {})
        for c, w in enumerate(widths):
            text = line.cells[c] if c < len(line.cells) else ""
            if c == 0:
                text = "  " * line.depth + "  " + text
            old = marks.get(c)
            if old is not None:
                shown = text if old == UNSET else f"{old}{ARROW}{text.strip() if c == 0 else text}"
                segs.append(Segment(_fit(shown, w), style + self._style("changed")))
            else:
                segs.append(Segment(_fit(text, w), style))
            segs.append(Segment(" ", style))
        return segs[:-1]


def _fit(text: str, width: int) -> str:
    """``text`` in ``width`` cells; cut, it ends in an ellipsis: a cut offset or shape would
    read as a whole, different one (0xc00000a00 as 0xc00000)."""
    if len(text) <= width:
        return text.ljust(width)
    return text[:width - 1] + "…" if width > 0 else ""
