"""Finding text in what a pane or the help shows (`/`, then n and N): the next occurrence of a
text in lines, from the last one found, forward or back and round the end, ignoring case
(strip_marks.py draws it marked)."""
from __future__ import annotations

from typing import Sequence

from textual.geometry import Region
from textual.widget import Widget

Match = tuple[int, int, int]   # line, first character, character after the last


def next_match(lines: Sequence[str], text: str, at: tuple[int, int] | None,
               step: int = 1) -> Match | None:
    """The occurrence of ``text`` after ``at`` (line, character; ``step`` -1: before it),
    round the end; from the first line (-1: the last) if ``at`` is None."""
    needle = text.lower()
    if not needle:
        return None
    hits = []
    for n, line in enumerate(lines):
        low, i = line.lower(), -1
        while (i := low.find(needle, i + 1)) >= 0:
            hits.append((n, i, i + len(needle)))
    if not hits:
        return None
    if at is None:
        return hits[0] if step > 0 else hits[-1]
    if step > 0:
        return next((h for h in hits if h[:2] > at), hits[0])
    return next((h for h in reversed(hits) if h[:2] < at), hits[-1])


def still_there(lines: Sequence[str], text: str, match: Match | None) -> Match | None:
    """``match`` if its line still holds ``text`` where it was found (the lines were drawn
    again), else None: a mark must not land on other text."""
    if match is None or match[0] >= len(lines):
        return None
    line, start, end = match
    return match if lines[line][start:end].lower() == text.lower() else None


def scroll_into_view(widget: Widget, region: Region) -> None:
    """Scroll ``widget``'s container so ``region`` (in the widget) is in sight."""
    parent = widget.parent
    if isinstance(parent, Widget):
        parent.scroll_to_region(region.translate(widget.virtual_region.offset),
                                animate=False, immediate=True)
