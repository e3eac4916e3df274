"""Pane 6, the source of a host program: the line it is parked on (=>), the line that submitted
the SQE selected (◆), the lines where faults, failed API calls and the program's exception were
met (!), the lines whose SQE a blocked stream waits at (⏸) and line breakpoints (●; F9 sets or
clears one on the selected row's line, else on the parked line). Below the code, what the script
put on the device, one row per SQE (events, notifies and labels are SQEs too) and per fault,
each with its line: moving along the rows marks the line, as selecting an SQE in the device
pane does."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import ScrollableContainer
from textual.widgets import Static

from npu_emu.runtime import Runtime
from workbench.debugger.stream_names import named_stream, stream_phrase
from workbench.debugger.targets.target_kind import Capability
from workbench.debugger.views.host_source import source_lines
from workbench.tui.pane import Pane, redraw
from workbench.tui.search import Match, next_match
from workbench.tui.strip_marks import MATCH_STYLE
from workbench.tui.session_views import SessionViews
from workbench.tui.tree_table import Column, TableLine, TreeTable

if TYPE_CHECKING:   # the runner loads the facade: the app starts without it
    from workbench.debugger.targets.host_runner import HostProgramObserver, SourceLine, Submitted

FAULT = "fault:"   # the key prefix of a fault's row


@dataclass
class SourceData:
    name: str = ""
    lines: list[str] = field(default_factory=list)
    frames: tuple[SourceLine, ...] = ()
    sqes: dict[tuple[int, int], Submitted] = field(default_factory=dict)
    faults: list[tuple[str, SourceLine | None]] = field(default_factory=list)
    waits: dict[int, str] = field(default_factory=dict)   # line -> the blocked stream(s)
    breaks: set[int] = field(default_factory=set)          # lines with a line breakpoint
    streams: dict[int, str] = field(default_factory=dict)  # rt stream -> the program's name


def blocked_lines(runtime: Runtime, program: HostProgramObserver) -> dict[int, str]:
    """Line -> the streams blocked at an SQE that line submitted (a wait that cannot pass)."""
    lines: dict[int, list[str]] = {}
    for device in runtime.devices.values():
        for stream in device.scheduler.streams:
            task = stream.waiting
            sub = program.submitted.get((stream.id, task.pos)) if task is not None else None
            if sub is not None:
                name = program.names.stream(stream.id)
                lines.setdefault(sub.site.line, []).append(
                    f"{name} (stream {stream.label})" if name else f"stream {stream.label}")
    return {line: ", ".join(who) for line, who in lines.items()}


def _row_key(stream: int, pos: int) -> str:
    return f"{stream}:{pos}"


class SourcePane(Pane):
    PANE_ID = "source"
    TITLE = "6 Source"
    NEEDS = Capability.SOURCE
    BREAKS = True   # F9: a line breakpoint

    def __init__(self) -> None:
        super().__init__()
        self.data = SourceData()
        self.marked: int | None = None   # the line of the selected SQE or fault
        self.said = ""                   # what the where line says about it
        self.search = ""                 # the text `/` found last in the code
        self.found: Match | None = None  # ... where (line from 0)
        self.pending: tuple[int, int] | None = None   # an SQE selected while this was stale

    def compose(self) -> ComposeResult:
        yield Static("", id="source-where", markup=False)
        with ScrollableContainer(id="source-scroll"):   # long lines scroll, not wrap
            yield Static("", id="source-text", markup=False)
        yield TreeTable([Column("line", 4, 6), Column("function", 6, 16, name=True),
                         Column("stream", 6, 24, name=True), Column("SQE", 3, 6),
                         Column("submitted", 10, 80)], id="source-submits")

    def focus_main(self) -> None:
        self.screen.set_focus(self.table)

    @property
    def table(self) -> TreeTable:
        return self.query_one("#source-submits", TreeTable)

    def read(self, views: SessionViews) -> SourceData:
        d = views.debugger
        program = d.state.program if d is not None and d.state is not None else None
        if program is None:
            return SourceData()
        path = d.target.path
        breaks = {int(bp.spec.rpartition(":")[2]) for bp in d.breakpoints.values()
                  if bp.spec.startswith(f"{path.name}:")}
        return SourceData(path.name, source_lines(path),
                          program.frames() if not d.run.finished else (),
                          dict(program.submitted), list(program.fault_sites),
                          blocked_lines(d.run.world.runtime, program), breaks,
                          dict(d.handle_names().streams))

    def breakpoint_spec(self) -> str | None:
        data = self.data
        line = self.marked or (data.frames[0].line if data.frames else None)
        return f"{data.name}:{line}" if data.name and line else None

    def unchanged(self, data: SourceData) -> bool:
        return False   # the frames move while the rows stay: cheap to redraw

    def show(self, data: SourceData | None) -> None:
        if data is None:
            return
        self.data = data
        rows = [TableLine(_row_key(*key), (str(s.site.line), s.site.function,
                                           named_stream(key[0], names=data.streams),
                                           str(key[1]), s.what))
                for key, s in data.sqes.items()]
        rows += [TableLine(f"{FAULT}{n}", (str(site.line) if site else "-",
                                           site.function if site else "-", "", "", text),
                           tone="error")
                 for n, (text, site) in enumerate(data.faults)]
        if rows != self.table.lines:
            self.table.set_lines(rows)
        self.redraw()
        if self.pending is not None:
            self._to_sqe(*self.pending)
            self.pending = None

    def find(self, text: str, step: int = 1) -> bool:
        """The code first (the match marked); with no match there, the rows of what the
        script submitted."""
        at = self.found[:2] if self.found is not None and self.search == text.lower() \
            else None
        found = next_match([line.rstrip("\n") for line in self.data.lines], text, at, step)
        self.search, self.found = text.lower(), found
        if found is None:
            self.redraw()
            return super().find(text, step)
        self.redraw(scroll_to=found[0] + 1)
        return True

    def end_search(self) -> None:
        self.search, self.found = "", None
        self.redraw()

    def select_sqe(self, stream: int | None, pos: int | None) -> None:
        """The SQE selected in the device pane: its row here, and its line marked."""
        if stream is None or pos is None:
            return
        # hidden, it holds an earlier stop's rows: it looks once the current ones come
        self.pending = (stream, pos) if self.stale else None
        if self.pending is None:
            self._to_sqe(stream, pos)

    def _to_sqe(self, stream: int, pos: int) -> None:
        key = _row_key(stream, pos)
        if self.table.move_to(key):
            self._show_row(key)   # (the cursor may have been on it: no Highlighted then)
        else:
            self._mark(None, f"SQE {pos} of {stream_phrase(stream, self.data.streams)}: not "
                             f"submitted by a line of the script")

    def on_tree_table_highlighted(self, message: TreeTable.Highlighted) -> None:
        message.stop()
        self._show_row(message.key or "")

    def _show_row(self, key: str) -> None:
        """The line of the SQE or fault on row ``key`` marked, and what it is said."""
        if key.startswith(FAULT):
            text, site = self.data.faults[int(key[len(FAULT):])]
            self._mark(site.line if site else None, f"fault met at line {site.line}"
                       if site else "fault met outside the script")
            return
        stream, _, pos = key.partition(":")
        sub = self.data.sqes.get((int(stream), int(pos))) if pos else None
        if sub is not None:
            where = stream_phrase(int(stream), self.data.streams)
            self._mark(sub.site.line, f"SQE {pos} of {where} submitted at line "
                                      f"{sub.site.line} in {sub.site.function}")

    def _mark(self, line: int | None, said: str) -> None:
        self.marked, self.said = line, said
        self.redraw(scroll_to=line)

    def redraw(self, scroll_to: int | None = None) -> None:
        data = self.data
        where = self.query_one("#source-where", Static)
        body = self.query_one("#source-text", Static)
        if not data.lines:
            note = "no host program (a .py target shows its source here)"
            redraw(where, note, note, note)   # (through its cache: the next line is drawn)
            body.update("")
            return
        current = data.frames[0].line if data.frames else None
        fault_lines = {site.line for _, site in data.faults if site is not None}
        said = [f"{data.name}:{current} in {data.frames[0].function} (parked)" if current else
                f"{data.name}: not running"]
        if data.waits:
            said.append("waiting: " + ", ".join(f"line {n} ({who})"
                                                for n, who in sorted(data.waits.items())))
        if self.said:
            said.append(self.said)
        line = " · ".join(said)
        redraw(where, line, line, line)   # laid out again: it may take one line or two
        code = "".join(data.lines)
        highlighted = Syntax(code, "python", theme="ansi_dark").highlight(code)
        out = Text(no_wrap=True, overflow="ellipsis")
        for n, line in enumerate(highlighted.split("\n", allow_blank=True)[:len(data.lines)], 1):
            gutter = ("=>" if n == current else "◆ " if n == self.marked else
                      "! " if n in fault_lines else "⏸ " if n in data.waits else
                      "● " if n in data.breaks else "  ")
            style = "bold green" if n == current else "bold yellow" if n == self.marked else \
                "bold red" if n in fault_lines else "bold magenta" if n in data.waits else \
                "red" if n in data.breaks else "dim"
            out.append(f"{gutter}{n:4d} ", style=style)
            start = len(out)
            out.append(line)
            if self.found is not None and self.found[0] == n - 1:
                out.stylize(MATCH_STYLE, start + self.found[1], start + self.found[2])
            out.append("\n")
        body.update(out)
        target = scroll_to or current
        if target:
            self.query_one("#source-scroll", ScrollableContainer).scroll_to(
                y=max(target - 5, 0), animate=False)
