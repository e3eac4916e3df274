"""The command line: the same command language as the REPL and `.gwb` scripts, with Tab
completion from the live target and the REPL's history file (Up / Down)."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Callable

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input

from workbench.commands.completion import complete

if TYPE_CHECKING:
    from workbench.commands.session import DebugSession

Completer = Callable[[str], tuple[int, list[str]]]


def _common_prefix(words: list[str]) -> str:
    return os.path.commonprefix(words) if words else ""


class CommandLine(Input):
    BINDINGS = [Binding("tab", "complete", "Complete", show=False, priority=True),
                Binding("up", "history(1)", show=False),
                Binding("down", "history(-1)", show=False)]

    def __init__(self, history_file: str | None, **kwargs) -> None:
        super().__init__(placeholder=": command (help lists them, Tab completes) · ? keys · "
                                     "ctrl+p palette", select_on_focus=False, **kwargs)
        self.completer: Completer | None = None
        self.hint = ""                 # the candidates of the last Tab, for the app to show
        self._history = None
        self._past: list[str] = []     # newest first
        self._at = -1
        if history_file is not None:
            from prompt_toolkit.history import FileHistory
            self._history = FileHistory(history_file)
            try:
                self._past = list(self._history.load_history_strings())
            except OSError:
                self._past = []

    def remember(self, line: str) -> None:
        if line and (not self._past or self._past[0] != line):
            self._past.insert(0, line)
            if self._history is not None:
                try:
                    self._history.store_string(line)
                except OSError:   # a read-only home: history stays in memory
                    pass
        self._at = -1

    def action_history(self, step: int) -> None:
        if not self._past:
            return
        self._at = max(-1, min(self._at + step, len(self._past) - 1))
        self.value = self._past[self._at] if self._at >= 0 else ""
        self.cursor_position = len(self.value)

    def action_complete(self) -> None:
        if self.completer is None:
            return
        text = self.value[:self.cursor_position]
        start, candidates = self.completer(text)
        word = text[start:]
        if not candidates:
            self.hint = "no completion"
        elif len(candidates) == 1:
            self._insert(start, candidates[0] + ("" if candidates[0].endswith(("/", "=")) else " "))
            self.hint = ""
        else:
            prefix = _common_prefix(candidates)
            if len(prefix) > len(word):
                self._insert(start, prefix)
            shown = " ".join(candidates[:40])
            self.hint = shown + (f" ... ({len(candidates)})" if len(candidates) > 40 else "")
        self.post_message(self.Hint(self, self.hint))

    def _insert(self, start: int, text: str) -> None:
        rest = self.value[self.cursor_position:]
        self.value = self.value[:start] + text + rest
        self.cursor_position = start + len(text)

    def on_key(self, event: events.Key) -> None:
        if event.key not in ("tab", "up", "down") and self.hint:
            self.hint = ""
            self.post_message(self.Hint(self, ""))

    class Hint(Message):
        """The completion candidates to show (empty: none)."""

        def __init__(self, line: CommandLine, text: str) -> None:
            super().__init__()
            self.line, self.text = line, text


def session_completer(session: Callable[[], DebugSession], busy: Callable[[], bool]) -> Completer:
    """Command names always; arguments from the live target only while it is parked. The
    session is asked for each time: playing a lesson starts a fresh one."""
    def run(text: str) -> tuple[int, list[str]]:
        if busy() and " " in text.strip():
            return len(text), []
        return complete(session(), text)
    return run
