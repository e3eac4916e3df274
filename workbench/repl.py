"""The REPL face (`gewb repl [TARGET]`): the debugger at a prompt-toolkit prompt, with persistent
history, completion from the command table and the live target, and highlighting by the command
language's lexer. Ctrl-C during `continue` parks the target and returns to the prompt; Ctrl-D
or `quit` leaves. A script run with `source` that names host programs asks first (y/N). Piped
commands (`gewb repl X < cmds.txt`) are read plainly and echoed: the output is a transcript."""
from __future__ import annotations

import io
import signal
import sys
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Iterable, Iterator, TextIO

from workbench.commands.completion import complete
from workbench.commands.history import history_path
from workbench.commands.render import render
from workbench.commands.session import DebugSession
from workbench.debugger.outcomes import Outcome, Printed, Quit
from workbench.script.consent import Consent
from workbench.sigint import sigint_handled_by
from workbench.terminal_text import printable

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


def _no_mouse():
    """Key bindings that take a mouse report as nothing. The prompts ask for no mouse, so a
    report is stray input (ESC [ 31 m typed reads as one), and prompt-toolkit's own handler
    raised ValueError on it, ending the session."""
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.keys import Keys
    keys = KeyBindings()
    keys.add(Keys.Vt100MouseEvent)(lambda event: None)
    return keys


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


def _ctrl_c_as_a_key() -> AbstractContextManager[None]:
    """While a prompt runs (``handle_sigint=False``): SIGINT ignored. At the prompt the
    terminal is raw, so Ctrl-C is a key, which the prompt takes as a KeyboardInterrupt; a signal
    comes only in the instants it sets up or tears down its terminal and event loop. There
    it raised KeyboardInterrupt in the middle of building the loop, which printed a traceback
    as the half-built loop was collected; and prompt-toolkit's own handler, run as the prompt
    ended, printed one as it tried to exit an application no longer running. A Ctrl-C in that
    instant, as the prompt appears, has nothing to interrupt."""
    return sigint_handled_by(signal.SIG_IGN)


def ask_yes_no(question: str) -> bool:
    """The REPL's y/N: only y or yes agrees; Ctrl-C or Ctrl-D is no (on piped input, the next
    line is the answer, and its end is no)."""
    from prompt_toolkit import prompt
    try:
        pipe = _pipe()
        if pipe is not None:
            answer = pipe.readline()
            print(f"{question} [y/N] {printable(answer.strip())}")
        else:
            with _ctrl_c_as_a_key():
                answer = prompt(f"{question} [y/N] ", key_bindings=_no_mouse(),
                                handle_sigint=False)
        return answer.strip().lower() in ("y", "yes")
    except (KeyboardInterrupt, EOFError):
        return False


def _pipe() -> TextIO | None:
    """stdin when it is no terminal (commands piped in; closed, it has none), its undecodable
    bytes read as U+FFFD rather than ending the session; None at a terminal."""
    stdin = sys.stdin
    if stdin is None:
        return io.StringIO()
    if stdin.isatty():
        return None
    if isinstance(stdin, io.TextIOWrapper) and stdin.errors != "replace":   # before a read
        stdin.reconfigure(errors="replace")
    return stdin


def _lines(session: DebugSession) -> Iterator[str]:
    """The lines typed at the prompt, until Ctrl-D. Piped in (a script, a test), they are read
    plainly and each is echoed after the prompt, so the output reads as a session's
    transcript: prompt-toolkit on a pipe warned, echoed each line twice, and wrote the piped
    lines into the user's history."""
    pipe = _pipe()
    if pipe is not None:
        try:
            for line in pipe:
                line = line.rstrip("\n")
                print(PROMPT + printable(line))
                yield line
        except KeyboardInterrupt:   # nothing typed to go back to: the session ends
            print()
        return
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory
    from prompt_toolkit.lexers import PygmentsLexer

    from workbench.commands.lexers import GwbLexer
    prompt = PromptSession(history=FileHistory(str(history_path())), key_bindings=_no_mouse(),
                           completer=_completer(session), lexer=PygmentsLexer(GwbLexer))
    while True:
        try:
            with _ctrl_c_as_a_key():
                line = prompt.prompt(PROMPT, handle_sigint=False)
        except KeyboardInterrupt:
            continue
        except EOFError:
            return
        yield line


def run_repl(target: str | None, allow_programs: bool = False) -> int:
    session = DebugSession(Path.cwd(), consent=Consent(allow=allow_programs, ask=ask_yes_no))
    if target:
        _show(session.execute(f"target {target}"))
    print(BANNER)
    try:
        for line in _lines(session):
            try:
                outcomes = session.execute(line)
                _show(outcomes)
            except KeyboardInterrupt:   # outside a run (the engine handles Ctrl-C in one), or
                print("interrupted")    # as a long answer prints: the session goes on
                continue
            if any(isinstance(o, Quit) for o in outcomes):
                break
    finally:
        session.close()
    return 0

