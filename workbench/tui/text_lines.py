"""Lines of styled runs, drawn as they are: no wrapping and no measuring, each line a strip of
segments built once. For text redrawn at every step (the stream columns, the timeline's lanes),
where a Rich table or Text costs more to lay out than the step it shows. `/` finds text in them
(the match marked, and kept while the lines drawn again still hold it). Not selectable with
the mouse: the offsets a selection reads would cost each step a new style per run."""
from __future__ import annotations

from functools import lru_cache

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from workbench.terminal_text import printable
from workbench.tui.search import Match, next_match, scroll_into_view, still_there
from workbench.tui.strip_marks import cells, mark

Run = tuple[str, str]    # text, style ("bold green", "" for none)
Line = list[Run]


@lru_cache(maxsize=256)
def _style(text: str) -> Style:
    return Style.parse(text) if text else Style()


class TextLines(Widget):
    DEFAULT_CSS = "TextLines { height: auto; }"
    ALLOW_SELECT = False

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.lines: list[Line] = []
        self._strips: list[Strip] = []
        self._base: Style | None = None   # rich_style walks the ancestors: once per restyle
        self.search = ""                  # the text `/` found last
        self.match: Match | None = None   # ... where

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._base = None

    @property
    def base_style(self) -> Style:
        if self._base is None:
            self._base = self.rich_style
        return self._base

    def set_lines(self, lines: list[Line]) -> None:
        """New lines; the screen is laid out again only if their number changed."""
        if lines == self.lines:
            return
        relayout = len(lines) != len(self.lines)
        self.lines = lines
        self._strips = [Strip([Segment(printable(text), _style(style))
                              for text, style in line if text])
                        for line in lines]
        self.match = still_there(self.texts, self.search, self.match)
        self.refresh(layout=relayout)

    @property
    def texts(self) -> list[str]:
        return [strip.text for strip in self._strips]

    def find(self, text: str, step: int = 1) -> bool:
        """Mark the next occurrence of ``text`` (``step`` -1: the previous), from the last one
        found, round, and scroll it into view; False if none."""
        at = self.match[:2] if self.match is not None and self.search == text.lower() else None
        self.show_match(text, next_match(self.texts, text, at, step))
        return self.match is not None

    def show_match(self, text: str, match: Match | None) -> None:
        self.search, self.match = text.lower(), match
        if match is not None:
            x = cells(self.texts[match[0]], match[1], match[2])
            scroll_into_view(self, Region(x[0], match[0], x[1] - x[0], 1))
        self.refresh()

    def end_search(self) -> None:
        self.search, self.match = "", None
        self.refresh()
    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return max((s.cell_length for s in self._strips), default=0)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.base_style
        if y >= len(self._strips):
            return Strip.blank(width, base)
        return mark(self._strips[y].apply_style(base), self.match, y).crop_extend(0, width, base)
