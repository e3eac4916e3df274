"""Marks on text drawn as strips of segments (the log, the help, the stream columns, the
timeline): the search match, and the mouse's selection."""
from __future__ import annotations

from typing import Sequence

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from workbench.tui.search import Match

# black on amber: far above WCAG AA (4.5:1) in the dark and the light theme alike
MATCH_STYLE = Style(color="#000000", bgcolor="#FFD33D", bold=True)


def cells(text: str, start: int, end: int) -> tuple[int, int]:
    """Characters [start, end) of ``text`` as cells (a wide character takes two)."""
    before = cell_len(text[:start])
    return before, before + cell_len(text[start:end])


def restyle(strip: Strip, start: int, end: int, style: Style) -> Strip:
    """``strip`` with cells [start, end) drawn in ``style`` over their own."""
    if start >= end or start >= strip.cell_length:
        return strip
    head, middle, tail = strip.divide([start, min(end, strip.cell_length), strip.cell_length])
    middle = Strip([Segment(s.text, (s.style or Style()) + style, s.control)
                    for s in middle])
    return Strip.join([head, middle, tail])


def mark(strip: Strip, match: Match | None, line: int) -> Strip:
    """``strip`` (line ``line``) with the search match on it marked, if any."""
    if match is None or match[0] != line:
        return strip
    return restyle(strip, *cells(strip.text, match[1], match[2]), MATCH_STYLE)


def selected(widget: Widget, strip: Strip, line: int) -> Strip:
    """``strip`` (line ``line`` of ``widget``) with the part the mouse selected highlighted."""
    selection = widget.text_selection
    if selection is not None and (span := selection.get_span(line)) is not None:
        start, end = span
        text = strip.text
        end = len(text) if end == -1 else end
        style = widget.screen.get_component_rich_style("screen--selection")
        strip = restyle(strip, *cells(text, start, end), style)
    return strip


def selection_text(lines: Sequence[str], selection: Selection) -> tuple[str, str]:
    """What ``Widget.get_selection`` answers for text drawn as ``lines``."""
    return selection.extract("\n".join(lines)), "\n"
