"""An IR diff as a person reads one (Compiler Explorer's opt-pipeline view): removed lines red,
added lines green, and inside a changed line the words that changed marked; side by side when
there is room. Plain rich renderables: the passes pane shows them, no widget here."""
from __future__ import annotations

import re
from difflib import SequenceMatcher

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from workbench.tui.search import Match
from workbench.tui.strip_marks import MATCH_STYLE

REMOVED, ADDED = "red", "green"
REMOVED_WORD, ADDED_WORD = "bold white on dark_red", "bold white on dark_green"
HEADER = "bold cyan"
SIDE_BY_SIDE = 160   # columns from which the two sides sit next to each other
_JOIN = " | "        # a side-by-side row's sides, as `/` reads the row
_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


def _pairs(lines: list[str]) -> list[tuple[str | None, str | None]]:
    """Rows of (old, new): a run of removed lines beside the added lines that follow it (the
    same node before and after, most often); the --- / +++ header as one row, hunk marks as
    (line, line)."""
    rows: list[tuple[str | None, str | None]] = []
    old: list[str] = []
    new: list[str] = []

    def flush() -> None:
        for i in range(max(len(old), len(new))):
            rows.append((old[i] if i < len(old) else None, new[i] if i < len(new) else None))
        old.clear()
        new.clear()

    for line in lines:
        if line.startswith("+++") and rows and rows[-1][1] is None and \
                (rows[-1][0] or "").startswith("---"):
            rows[-1] = (rows[-1][0], line)   # the file header: before beside after
        elif line.startswith("---"):
            flush()
            rows.append((line, None))
        elif line.startswith(("+++", "@@")):
            flush()
            rows.append((line, line))
        elif line.startswith("-"):
            if new:
                flush()
            old.append(line[1:])
        elif line.startswith("+"):
            new.append(line[1:])
        else:
            flush()
            rows.append((line[1:], line[1:]))
    flush()
    return rows


def _marked(old: str | None, new: str | None) -> tuple[Text | None, Text | None]:
    """The two sides, the words that differ between them marked."""
    if old is None or new is None:
        return (Text(old, style=REMOVED) if old is not None else None,
                Text(new, style=ADDED) if new is not None else None)
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    left, right = Text(style=REMOVED), Text(style=ADDED)
    for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        same = op == "equal"
        left.append("".join(a[i1:i2]), style=None if same else REMOVED_WORD)
        right.append("".join(b[j1:j2]), style=None if same else ADDED_WORD)
    return left, right


def coloured_diff(text: str, width: int, match: Match | None = None) -> RenderableType:
    """A unified diff's text, coloured; side by side from SIDE_BY_SIDE columns. ``match`` (a
    line of ``diff_lines``, its characters) is marked, as `/` found it."""
    lines = _lines(text, width)
    if match is not None and match[0] < len(lines):
        row, start, end = match
        for side in lines[row]:   # the columns of a row read as one line, joined by " | "
            if side is None:
                continue
            if start < len(side.plain):
                side.stylize(MATCH_STYLE, start, min(end, len(side.plain)))
                break
            start, end = start - len(side.plain) - len(_JOIN), end - len(side.plain) - len(_JOIN)
    if width >= SIDE_BY_SIDE:
        table = Table.grid(expand=True, padding=(0, 1))
        table.add_column(ratio=1, overflow="fold")
        table.add_column(ratio=1, overflow="fold")
        for left, right in lines:
            table.add_row(left or "", right or "")
        return table
    out = Text(no_wrap=True)
    for (line,) in lines:
        out.append_text(line)
        out.append("\n")
    out.rstrip()
    return out


def diff_lines(text: str, width: int) -> list[str]:
    """What ``coloured_diff`` shows at ``width``, a line (a row side by side) a string: what
    `/` searches."""
    return [_JOIN.join(side.plain for side in row if side is not None)
            for row in _lines(text, width)]


def _lines(text: str, width: int) -> list[tuple[Text | None, ...]]:
    """The diff's rows as drawn: (old, new) side by side, else one signed line each."""
    rows = _pairs(text.splitlines())
    out: list[tuple[Text | None, ...]] = []
    for old, new in rows:
        if old is not None and old.startswith("---") and (new is None or new.startswith("+++")):
            sides = (Text(old, style=HEADER), Text(new or "", style=HEADER))
            out += [sides] if width >= SIDE_BY_SIDE else [(side,) for side in sides if side]
            continue
        if old is not None and old == new:
            header = old.startswith(("---", "+++", "@@"))
            style = HEADER if header else "dim"
            if width >= SIDE_BY_SIDE:
                out.append((Text(old, style=style), Text(new, style=style)))
            else:
                out.append((Text(old if header else " " + old, style=style),))
            continue
        left, right = _marked(old, new)
        if width >= SIDE_BY_SIDE:
            out.append((left, right))
            continue
        for sign, side in (("-", left), ("+", right)):
            if side is not None:
                line = Text(sign, style=side.style)
                line.append_text(side)
                out.append((line,))
    return out
