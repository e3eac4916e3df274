"""The status bar: target, phase, stepping unit, tick, the last stop's reason, and what the app
is doing (a running command, an error)."""
from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from workbench.terminal_text import printable
from workbench.tui.session_views import Status


class StatusBar(Static):
    status: reactive[Status] = reactive(Status, always_update=True)
    activity: reactive[str] = reactive("")      # "running continue ...", "" when idle
    error: reactive[str] = reactive("")         # the last error line, until the next command

    def render(self) -> Text:
        s = self.status
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f" {printable(s.target)} ", style="bold reverse")
        if s.kind:
            phase = "finished" if s.finished else (s.phase or "not started")
            text.append(f" {phase} ", style="bold")
            text.append(f"· step {s.granularity} · tick {s.tick} ")
        if self.activity:
            text.append(f"· {printable(self.activity)} ", style="bold yellow")
        elif self.error:
            text.append(f"· {printable(self.error)} ", style="bold red")
        elif s.reason:
            text.append(f"· {printable(s.reason)}", style="cyan")
        return text
