"""The lesson's side panel: the narration of a `.gwb` lesson (its `say` lines) as it plays, and
at each `pause` the prompt to go on."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static


class LessonPanel(VerticalScroll):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.text = Text()

    def compose(self) -> ComposeResult:
        yield Static("", id="lesson-text", markup=False)

    def on_mount(self) -> None:
        self.border_title = "Lesson"

    def say(self, text: str) -> None:
        self._add(Text(text + "\n"))

    def paused(self) -> None:
        self._add(Text("\n[Enter or space: go on]\n\n", style="bold yellow"))

    def ended(self, how: str) -> None:
        self._add(Text(f"\n{how}\n", style="bold"))

    def _add(self, more: Text) -> None:
        self.text.append_text(more)
        self.query_one("#lesson-text", Static).update(self.text)
        self.scroll_end(animate=False)
