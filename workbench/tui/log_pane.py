"""Pane 7, the log: every command and what it answered, as the REPL prints it (IR and diffs
highlighted with the lexers), a lesson's narration; beside it, the breakpoints and watches with
their hit counts."""
from __future__ import annotations

from itertools import groupby

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from workbench.commands.lexers import GeIrLexer
from workbench.commands.render import PROMPT, echoed, render
from workbench.debugger.outcomes import Error, Outcome, Printed, ProgramOutput, Say
from workbench.script.player import narration
from workbench.terminal_text import printable
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
        for said, run in groupby(outcomes, lambda o: isinstance(o, Say)):
            if said:   # a `say` block: one paragraph, wrapped to the log as prose
                self.text_log.write(Text(printable(narration(run)), style="italic cyan"))
                continue
            for o in run:
                self._write(o)

    def _write(self, o: Outcome) -> None:
        lines = render(o)
        if not lines:   # quit, show: nothing to log
            return
        text = "\n".join(lines)
        if isinstance(o, Printed) and o.style in ("ir", "diff"):
            self.text_log.write(Syntax(text, GeIrLexer(), theme="ansi_dark", word_wrap=True,
                                       background_color="default"))
        else:
            style = "bold red" if isinstance(o, Error) else \
                "magenta" if isinstance(o, ProgramOutput) else ""
            self.text_log.write(Text(text, style=style))

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
