"""The app's modal screens: the help (keys and commands), and yes/no questions: quitting while a
command runs, a lesson running the host programs its header names."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from workbench.commands.table import COMMANDS
from workbench.tui.keymap import KEY_TABLE
from workbench.tui.line_log import LineLog


class HelpScreen(ModalScreen[None]):
    """The key table and every command; `/` finds text in them, n and N the next and previous
    occurrence, Esc ends the search (again: closes the help)."""

    BINDINGS = [Binding("q,question_mark", "dismiss", "Close"),
                Binding("escape", "escape", "Close"),
                Binding("slash", "search", "Search", priority=True),
                Binding("n", "find(1)", "Next match"), Binding("N", "find(-1)", "Previous match")]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-body"):
            yield LineLog(10_000, id="help-text")
            yield Input(placeholder="/ find in the help (Enter; then n, N; Esc ends)",
                        id="help-search")
            yield Static("/ finds · n N next, previous · Esc closes this help", id="help-foot",
                         markup=False)

    def on_mount(self) -> None:
        keys = Table(title="keys", title_justify="left", box=None, padding=(0, 2, 0, 0),
                     title_style="bold")
        keys.add_column("key", style="bold")
        keys.add_column("does")
        for key, what in KEY_TABLE:   # Text: square brackets are not markup here
            keys.add_row(Text(key), Text(what))
        commands = Table(title="commands (type after :)", title_justify="left", box=None,
                         padding=(0, 2, 0, 0), title_style="bold")
        commands.add_column("usage", style="bold")
        commands.add_column("does")
        for c in COMMANDS.unique():
            commands.add_row(Text(c.usage), Text(c.summary))
        body = self.text
        for part in (keys, Text(""), commands):
            body.write(part)
        body.top = 0   # from the start, not following the end as the app's log does
        self.query_one("#help-search").display = False
        self.set_focus(body)

    @property
    def text(self) -> LineLog:
        return self.query_one("#help-text", LineLog)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        typing = isinstance(self.focused, Input)   # its letters and / are the text's
        if action in ("search", "find", "dismiss"):
            return not typing and (action != "find" or bool(self.text.search))
        return True

    def action_search(self) -> None:
        box = self.query_one("#help-search", Input)
        box.display = True
        self.set_focus(box)   # now: the text typed next is its

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        event.input.display = False
        self.set_focus(self.text)
        if event.value.strip():
            self.text.search = ""   # a new search: from the top line shown
            self.action_find(1, event.value.strip())

    def action_find(self, step: int, text: str | None = None) -> None:
        text = text or self.text.search
        found = self.text.find(text, step)
        foot = self.query_one("#help-foot", Static)
        foot.update(f"/{text} · n N next, previous · Esc ends the search" if found
                    else f"no match for {text} in the help")
        foot.set_class(not found, "-error")

    def action_escape(self) -> None:
        box = self.query_one("#help-search", Input)
        if box.display:
            box.value, box.display = "", False
            self.set_focus(self.text)
        elif self.text.search:
            self.text.end_search()
            self.query_one("#help-foot", Static).update(
                "/ finds · n N next, previous · Esc closes this help")
        else:
            self.dismiss()


class Question(ModalScreen[bool]):
    """A yes/no question: y answers yes, n or Esc no (keys, not bindings: a binding's action
    runs after the keys typed behind it have been handed out, and those must not be lost)."""

    ANSWERS = {"y": True, "n": False, "escape": False}

    def __init__(self, text: str, yes: str, no: str) -> None:
        super().__init__()
        self.text, self.yes, self.no = text, yes, no
        self.answered = False

    def compose(self) -> ComposeResult:
        with Vertical(id="question-box"):
            yield Static(self.text, markup=False)
            yield Button(f"{self.yes} (y)", id="answer-yes", variant="error")
            yield Button(f"{self.no} (n)", id="answer-no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if not self.answered:
            self.answer(event.button.id == "answer-yes")

    def answer(self, answer: bool) -> None:
        self.answered = True
        self.dismiss(answer)

    def on_key(self, event: events.Key) -> None:
        """y, n, Esc answer; a key typed on after the answer, before the dialog has gone
        (`y:info` in one go), is the app's once the dialog is gone, not lost on it."""
        if self.answered:
            event.stop()
            event.prevent_default()
            self.app.call_later(self.app.post_message, events.Key(event.key, event.character))
        elif event.key in self.ANSWERS:
            event.stop()
            event.prevent_default()
            self.answer(self.ANSWERS[event.key])


def quit_question() -> Question:
    """Quit while a command runs? The target is interrupted (parked) first."""
    return Question("A command is running. Interrupt it and quit?", "Quit", "Stay")


def programs_question(question: str) -> Question:
    """May a lesson run the host programs its header names (consent.py)?"""
    return Question(question, "Run it", "Do not")
