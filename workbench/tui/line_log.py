"""An append-only log of rendered lines that follows its end (the log pane's text). Like the
tree table it keeps its own top line instead of a growing virtual size, so writing a line
redraws the log alone, not the whole screen (a relayout). Lines are rendered when written, at
the width the log has then, and all again when that width changes (a line written before the
log had its size would otherwise keep the wrong wrap). `/` finds text in it (the match marked), and
the mouse selects it."""
from __future__ import annotations

from rich.console import RenderableType
from rich.segment import Segment
from textual import events
from textual.binding import Binding
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from workbench.tui.search import Match, next_match
from workbench.tui.strip_marks import mark, selected, selection_text


class LineLog(Widget, can_focus=True):
    DEFAULT_CSS = "LineLog { height: 1fr; }"
    BINDINGS = [Binding("up", "scroll(-1)", show=False), Binding("down", "scroll(1)", show=False),
                Binding("pageup", "page(-1)", show=False),
                Binding("pagedown", "page(1)", show=False),
                Binding("home", "edge(0)", show=False), Binding("end", "edge(1)", show=False)]

    def __init__(self, max_lines: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.max_lines = max_lines
        self.written: list[tuple[RenderableType, int]] = []   # each with its count of lines
        self.lines: list[Strip] = []
        self.top: int | None = None   # None: follow the end
        self._width = 0               # the width the lines were rendered at
        self._base = None             # rich_style walks the ancestors: once per restyle
        self.search = ""              # the text `/` found last
        self.match: Match | None = None   # ... where

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._base = None

    def write(self, renderable: RenderableType) -> None:
        self._fit()
        strips = self._render(renderable)
        self.lines += strips
        self.written.append((renderable, len(strips)))
        dropped = 0
        while len(self.lines) - dropped > self.max_lines and len(self.written) > 1:
            dropped += self.written.pop(0)[1]
        if dropped:
            del self.lines[:dropped]
            if self.top is not None:
                self.top = max(0, self.top - dropped)
            if self.match is not None:
                line, start, end = self.match
                self.match = (line - dropped, start, end) if line >= dropped else None
        self.refresh()

    def _render(self, renderable: RenderableType) -> list[Strip]:
        console = self.app.console
        options = console.options.update_width(max(self._width, 20) if self._width
                                               else console.width)
        return [Strip(Segment.simplify(segments))
                for segments in console.render_lines(renderable, options, pad=False)]

    def _fit(self) -> None:
        """Every line wrapped anew if the log's width is not the one they were rendered at.
        Asked before each write and each drawn line, not only on Resize: the layout gives the
        log its new size first and its Resize event comes later, and a line written or a
        frame drawn in between would have set the new width over lines of the old one (drawn
        cut) or cropped them."""
        width = self.size.width
        if not width or width == self._width:
            return
        self._width = width
        self.lines, written = [], self.written
        self.written = []
        for renderable, _ in written:
            strips = self._render(renderable)
            self.lines += strips
            self.written.append((renderable, len(strips)))
        self.match = None   # wrapped anew: the match moved

    def on_resize(self) -> None:
        self._fit()
        self.refresh()

    def _first(self) -> int:
        end = max(len(self.lines) - self.size.height, 0)
        return end if self.top is None else min(self.top, end)

    def render_line(self, y: int) -> Strip:
        self._fit()
        n = self._first() + y
        width = self.size.width
        if self._base is None:
            self._base = self.rich_style
        if n >= len(self.lines):
            return Strip.blank(width, self._base)
        # each character's offset (x, line) for a selection to come; once per line written
        strip = self.lines[n].apply_offsets(0, n)
        return selected(self, mark(strip, self.match, n), n).crop_extend(0, width, self._base)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selection_text([line.text for line in self.lines], selection)

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    def scroll_lines(self, delta: int) -> None:
        end = max(len(self.lines) - self.size.height, 0)
        top = max(0, min(self._first() + delta, end))
        self.top = None if top >= end else top
        self.refresh()

    def find(self, text: str, step: int = 1) -> bool:
        """Mark the next occurrence of ``text`` (``step`` -1: the previous) from the last one
        found, else from the top line shown, round; scroll it into view. False if none."""
        at = self.match[:2] if self.match is not None and self.search == text.lower() \
            else (self._first(), -1)
        found = next_match([line.text for line in self.lines], text, at, step)
        self.search, self.match = text.lower(), found
        if found is not None:
            first = self._first()
            if not first <= found[0] < first + self.size.height:
                end = max(len(self.lines) - self.size.height, 0)
                self.top = None if found[0] >= end else found[0]
        self.refresh()
        return found is not None

    def end_search(self) -> None:
        self.search, self.match = "", None
        self.refresh()

    def action_scroll(self, delta: int) -> None:
        self.scroll_lines(delta)

    def action_page(self, direction: int) -> None:
        self.scroll_lines(direction * max(self.size.height - 1, 1))

    def action_edge(self, end: int) -> None:
        self.top = None if end else 0
        self.refresh()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self.scroll_lines(3)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self.scroll_lines(-3)
