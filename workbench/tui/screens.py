"""The app's modal screens: the help (keys and commands), and yes/no questions: quitting while a
command runs, a lesson running the host programs its header names."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from workbench.commands.table import COMMANDS
from workbench.tui.keymap import KEY_TABLE


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
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
        with VerticalScroll(id="help-body"):
            yield Static(keys)
            yield Static(commands)
            yield Static("Esc closes this help.", classes="dim")


class Question(ModalScreen[bool]):
    """A yes/no question: y answers yes, n or Esc no."""

    BINDINGS = [Binding("y", "answer(True)", "Yes"), Binding("n,escape", "answer(False)", "No")]

    def __init__(self, text: str, yes: str, no: str) -> None:
        super().__init__()
        self.text, self.yes, self.no = text, yes, no

    def compose(self) -> ComposeResult:
        with Vertical(id="question-box"):
            yield Static(self.text, markup=False)
            yield Button(f"{self.yes} (y)", id="answer-yes", variant="error")
            yield Button(f"{self.no} (n)", id="answer-no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "answer-yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


def quit_question() -> Question:
    """Quit while a command runs? The target is interrupted (parked) first."""
    return Question("A command is running. Interrupt it and quit?", "Quit", "Stay")


def programs_question(question: str) -> Question:
    """May a lesson run the host programs its header names (consent.py)?"""
    return Question(question, "Run it", "Do not")
