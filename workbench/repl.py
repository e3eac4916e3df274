"""The REPL face (`gewb repl [TARGET]`): the debugger at a prompt-toolkit prompt, with persistent
history, completion from the command table and the live target, and highlighting by the command
language's lexer. Ctrl-C during `continue` parks the target and returns to the prompt; Ctrl-D
or `quit` leaves."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from workbench.commands.completion import complete
from workbench.commands.render import render
from workbench.commands.session import Session
from workbench.debugger.outcomes import Outcome, Printed

PROMPT = "(gewb) "
QUIT = ("quit", "exit", "q")


def history_path() -> Path:
    return Path(os.environ.get("GEWB_HISTORY", Path.home() / ".gewb_history"))


def _completer(session: Session):
    from prompt_toolkit.completion import Completer, Completion

    class SessionCompleter(Completer):
        def get_completions(self, document, complete_event) -> Iterable[Completion]:
            text = document.text_before_cursor
            start, candidates = complete(session, text)
            for c in candidates:
                yield Completion(c, start_position=start - len(text))
    return SessionCompleter()


def _show(outcomes: list[Outcome]) -> None:
    from prompt_toolkit import print_formatted_text
    from prompt_toolkit.formatted_text import PygmentsTokens
    from pygments.lexers.diff import DiffLexer

    from workbench.commands.lexers import GeIrLexer
    for o in outcomes:
        text = "\n".join(render(o))
        lexer = {"ir": GeIrLexer, "diff": DiffLexer}.get(o.style) if isinstance(o, Printed) \
            else None
        if lexer is None:
            print(text)
        else:
            print_formatted_text(PygmentsTokens(list(lexer().get_tokens(text + "\n"))), end="")


def run_repl(target: str | None) -> int:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory
    from prompt_toolkit.lexers import PygmentsLexer

    from workbench.commands.lexers import GwbLexer
    session = Session(Path.cwd())
    if target:
        _show(session.execute(f"target {target}"))
    prompt = PromptSession(history=FileHistory(str(history_path())),
                           completer=_completer(session), lexer=PygmentsLexer(GwbLexer))
    print("GE Workbench debugger: `help` lists the commands, Ctrl-D or `quit` leaves.")
    try:
        while True:
            try:
                line = prompt.prompt(PROMPT)
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            if line.strip() in QUIT:
                break
            try:
                _show(session.execute(line))
            except KeyboardInterrupt:   # outside a run (the engine handles Ctrl-C in one)
                print("interrupted")
    finally:
        session.close()
    return 0

