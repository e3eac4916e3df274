"""The status bar: target, phase, stepping unit, tick, the last stop's reason, and what the app
is doing (a running command, an error). Each thing once: a stop that is just a step of the unit
shown is not said again. A click on the unit makes F10's unit one coarser."""
from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

from workbench.terminal_text import printable
from workbench.tui.session_views import Status


class StatusBar(Static):
    status: reactive[Status] = reactive(Status, always_update=True)
    activity: reactive[str] = reactive("")      # "running continue ...", "" when idle
    error: reactive[str] = reactive("")         # the last error line, until the next command
    unit: reactive[str] = reactive("")          # F10's unit when not the debugger's ("": it is)

    class UnitClicked(Message):
        """The stepping unit was clicked."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._unit_span = (0, 0)

    def render(self) -> Text:
        s = self.status
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f" {printable(s.target)} ", style="bold reverse")
        unit = self.unit or s.granularity
        phase = "finished" if s.finished else (s.phase or "not started")
        if s.kind:
            text.append(f" {phase} ", style="bold")
            text.append("· ")
            start = len(text)
            text.append(f"step {unit}", style="underline")
            self._unit_span = (start, len(text))
            text.append(f" · tick {s.tick} ")
        if self.activity:
            text.append(f"· {printable(self.activity)} ", style="bold yellow")
        elif self.error:
            text.append(f"· {printable(self.error)} ", style="bold red")
        elif s.reason and s.reason not in (f"step {s.granularity}", phase):   # said once
            text.append(f"· {printable(s.reason)}", style="cyan")
        return text

    def on_click(self, event: events.Click) -> None:
        if self._unit_span[0] <= event.x < self._unit_span[1]:
            self.post_message(self.UnitClicked())
