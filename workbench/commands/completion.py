"""Completion for any face: the command table's names, then each command's own completer,
which asks the live target (node and pass names, stream, event and label ids) or the file
system. Plain strings: the REPL wraps them for prompt-toolkit, the TUI for its input."""
from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.commands.command import UsageError

if TYPE_CHECKING:
    from workbench.commands.session import DebugSession


def complete(session: DebugSession, text: str) -> tuple[int, list[str]]:
    """Candidates for the word ending ``text`` (the text before the cursor), and where in
    ``text`` that word starts."""
    words = text.split()
    partial = "" if not words or text[-1].isspace() else words.pop()
    start = len(text) - len(partial)
    if not words:
        return start, [n for n in session.commands.names() if n.startswith(partial)]
    try:
        cmd = session.commands.lookup(words[0])
    except UsageError:
        return start, []
    if cmd.complete is None:
        return start, []
    candidates = cmd.complete(session, words[1:], partial)
    return start, sorted({c for c in candidates if c.startswith(partial)})
