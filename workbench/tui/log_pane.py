"""Pane 7, the log: every command and what it answered, as the REPL prints it (IR and diffs
highlighted with the lexers), a lesson's narration; beside it, the breakpoints and watches with
their hit counts."""
from __future__ import annotations

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from workbench.commands.lexers import GeIrLexer
from workbench.commands.render import PROMPT, echoed, render
from workbench.debugger.outcomes import Error, Outcome, Printed, ProgramOutput, Say
from workbench.tui.line_log import LineLog
from workbench.tui.pane import Pane
from workbench.tui.session_views import SessionViews

MAX_LINES = 5000


class LogPane(Pane):
    PANE_ID = "log"
    TITLE = "7 Log"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield LineLog(MAX_LINES, id="log-text")
            yield Static("", id="log-breakpoints", markup=False)

    @property
    def text_log(self) -> LineLog:
        return self.query_one(LineLog)

    def find(self, text: str, step: int = 1) -> bool:
        return self.text_log.find(text, step)

    def end_search(self) -> None:
        self.text_log.end_search()

    def command(self, line: str) -> None:
        if echoed(line):
            self.text_log.write(Text(PROMPT + line, style="bold"))

    def note(self, text: str, style: str = "italic") -> None:
        self.text_log.write(Text(text, style=style))

    def outcomes(self, outcomes: list[Outcome]) -> None:
        log = self.text_log
        for o in outcomes:
            lines = render(o)
            if not lines:   # quit, show: nothing to log
                continue
            text = "\n".join(lines)
            if isinstance(o, Printed) and o.style in ("ir", "diff"):
                log.write(Syntax(text, GeIrLexer(), theme="ansi_dark", word_wrap=True,
                                 background_color="default"))
            elif isinstance(o, Error):
                log.write(Text(text, style="bold red"))
            elif isinstance(o, Say):
                log.write(Text(text, style="italic cyan"))
            elif isinstance(o, ProgramOutput):
                log.write(Text(text, style="magenta"))
            else:
                log.write(Text(text))

    def read(self, views: SessionViews) -> list[tuple[str, ...]]:
        d = views.debugger
        if d is None:
            return []
        rows = [(f"{bp.id}", "" if bp.enabled else "off", f"{bp.hits}", bp.text)
                for bp in d.breakpoints.values()]
        rows += [(f"{w.id}", "" if w.enabled else "off", f"{w.hits}", f"watch {w.spec} = {w.value}")
                 for w in d.watches.values()]
        return rows

    def show(self, rows: list[tuple[str, ...]] | None) -> None:
        if rows is None:
            return
        box = self.query_one("#log-breakpoints", Static)
        box.display = bool(rows)
        text = Text("breakpoints & watches (hits)\n", style="bold")
        for ident, off, hits, what in rows:
            text.append(f"{ident:>3} {hits:>3}x {what}{' (off)' if off else ''}\n",
                        style="dim" if off else "")
        box.update(text)
