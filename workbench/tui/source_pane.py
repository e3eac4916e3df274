"""Pane 6, the source of a host program: the line it is parked on (=>), the line that submitted
the SQE selected in the device pane (◆), and the lines where faults were met (!)."""
from __future__ import annotations

from dataclasses import dataclass, field

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from workbench.debugger.views.host_source import SourceFrame, parked, source_lines
from workbench.tui.pane import HOST_KINDS, Pane
from workbench.tui.session_views import SessionViews


@dataclass
class SourceData:
    name: str = ""
    lines: list[str] = field(default_factory=list)
    frames: tuple[SourceFrame, ...] = ()
    sqes: dict[tuple[int, int], int] = field(default_factory=dict)
    faults: list[tuple[str, int | None]] = field(default_factory=list)


class SourcePane(Pane):
    PANE_ID = "source"
    TITLE = "6 Source"
    KINDS = HOST_KINDS

    def __init__(self) -> None:
        super().__init__()
        self.data = SourceData()
        self.sqe: tuple[int, int] | None = None   # the SQE selected in the device pane

    def compose(self) -> ComposeResult:
        yield Static("", id="source-where", markup=False)
        with VerticalScroll(id="source-scroll"):
            yield Static("", id="source-text", markup=False)

    def read(self, views: SessionViews) -> SourceData:
        d = views.debugger
        if d is None or views.submits is None:
            return SourceData()
        rec = views.submits
        path = d.target.path
        return SourceData(path.name, source_lines(path), parked(path, rec.thread),
                          dict(rec.sqes), list(rec.faults))

    def show(self, data: SourceData | None) -> None:
        if data is not None:
            self.data = data
        self.redraw()

    def select_sqe(self, stream: int | None, pos: int | None) -> None:
        self.sqe = (stream, pos) if stream is not None and pos is not None else None
        self.redraw()

    def redraw(self) -> None:
        data = self.data
        where = self.query_one("#source-where", Static)
        body = self.query_one("#source-text", Static)
        if not data.lines:
            where.update("no host program (a .py target shows its source here)", layout=False)
            body.update("")
            return
        current = data.frames[0].line if data.frames else None
        submitted = data.sqes.get(self.sqe) if self.sqe is not None else None
        fault_lines = {line for _, line in data.faults if line is not None}
        said = [f"{data.name}:{current} (parked)" if current else
                f"{data.name}: not running"]
        if self.sqe is not None:
            said.append(f"SQE {self.sqe[1]} of stream {self.sqe[0]} submitted at line "
                        f"{submitted}" if submitted else
                        f"SQE {self.sqe[1]} of stream {self.sqe[0]}: not submitted by a line "
                        f"of the script")
        where.update(" · ".join(said), layout=False)
        code = "".join(data.lines)
        highlighted = Syntax(code, "python", theme="ansi_dark").highlight(code)
        out = Text(no_wrap=True, overflow="ellipsis")
        for n, line in enumerate(highlighted.split("\n", allow_blank=True)[:len(data.lines)], 1):
            gutter = ("=>" if n == current else "◆ " if n == submitted else
                      "! " if n in fault_lines else "  ")
            style = "bold green" if n == current else "bold yellow" if n == submitted else \
                "bold red" if n in fault_lines else "dim"
            out.append(f"{gutter}{n:4d} ", style=style)
            out.append(line)
            out.append("\n")
        for text, line in data.faults:
            out.append(f"\n! {data.name}:{line}: {text}" if line else f"\n! {text}",
                       style="red")
        body.update(out)
        target = current or submitted
        if target:
            self.query_one("#source-scroll", VerticalScroll).scroll_to(
                y=max(target - 5, 0), animate=False)
