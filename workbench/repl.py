"""The REPL face (`gewb repl [TARGET]`): the debugger at a prompt-toolkit prompt, with persistent
history, completion from the command table and the live target, and highlighting by the command
language's lexer. Ctrl-C during `continue` parks the target and returns to the prompt; Ctrl-D
or `quit` leaves. A script run with `source` that names host programs asks first (y/N)."""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from workbench.commands.completion import complete
from workbench.commands.history import history_path
from workbench.commands.render import render
from workbench.commands.session import DebugSession
from workbench.debugger.outcomes import Outcome, Printed, Quit
from workbench.script.consent import Consent

PROMPT = "(gewb) "
BANNER = "GE Workbench debugger: `help` lists the commands, Ctrl-D or `quit` leaves."


def _completer(session: DebugSession):
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
        lines = render(o)
        if not lines:   # quit, show: nothing to print
            continue
        text = "\n".join(lines)
        lexer = {"ir": GeIrLexer, "diff": DiffLexer}.get(o.style) if isinstance(o, Printed) \
            else None
        if lexer is None:
            print(text)
        else:
            print_formatted_text(PygmentsTokens(list(lexer().get_tokens(text + "\n"))), end="")


def ask_yes_no(question: str) -> bool:
    """The REPL's y/N: only y or yes agrees; Ctrl-C or Ctrl-D is no."""
    from prompt_toolkit import prompt
    try:
        return prompt(f"{question} [y/N] ").strip().lower() in ("y", "yes")
    except (KeyboardInterrupt, EOFError):
        return False


def run_repl(target: str | None) -> int:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory
    from prompt_toolkit.lexers import PygmentsLexer

    from workbench.commands.lexers import GwbLexer
    session = DebugSession(Path.cwd(), consent=Consent(ask=ask_yes_no))
    if target:
        _show(session.execute(f"target {target}"))
    prompt = PromptSession(history=FileHistory(str(history_path())),
                           completer=_completer(session), lexer=PygmentsLexer(GwbLexer))
    print(BANNER)
    try:
        while True:
            try:
                line = prompt.prompt(PROMPT)
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            try:
                outcomes = session.execute(line)
            except KeyboardInterrupt:   # outside a run (the engine handles Ctrl-C in one)
                print("interrupted")
                continue
            _show(outcomes)
            if any(isinstance(o, Quit) for o in outcomes):
                break
    finally:
        session.close()
    return 0

