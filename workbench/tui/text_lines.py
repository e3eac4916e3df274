"""Lines of styled runs, drawn as they are: no wrapping and no measuring, each line a strip of
segments built once. For text redrawn at every step (the stream columns, the timeline's lanes),
where a Rich table or Text costs more to lay out than the step it shows."""
from __future__ import annotations

from functools import lru_cache

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from workbench.terminal_text import printable

Run = tuple[str, str]    # text, style ("bold green", "" for none)
Line = list[Run]


@lru_cache(maxsize=256)
def _style(text: str) -> Style:
    return Style.parse(text) if text else Style()


class TextLines(Widget):
    DEFAULT_CSS = "TextLines { height: auto; }"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.lines: list[Line] = []
        self._strips: list[Strip] = []
        self._base: Style | None = None   # rich_style walks the ancestors: once per restyle

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
        self._strips = [Strip([Segment(printable(text), _style(style)) for text, style in line if text])
                        for line in lines]
        self.refresh(layout=relayout)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return max((s.cell_length for s in self._strips), default=0)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.base_style
        if y >= len(self._strips):
            return Strip.blank(width, base)
        return self._strips[y].apply_style(base).crop_extend(0, width, base)
