"""The one `.gwb` player: every face plays a script through it (`gewb run` headless, `source` in
a session, a lesson in the app), so consent, errors and pauses mean the same everywhere.

- Consent: the host programs the script's header names are agreed to (consent.py) before any
  line runs; while a line runs, only those can be opened (the host's ``running``).
- Errors: a line that answers an Error stops the script (unless the face keeps going), reported
  as ``file:line: reason``.
- Pauses: a `pause` ends a step, so a face that waits (the app) waits there; one that does not
  (`gewb run`, `source`) plays straight on.
- Narration: consecutive `say` lines are one step, one paragraph of prose (the file's line
  breaks are only the file's).

The player knows nothing of the command language: a face hands it how to run a line (``Run``)
and the session that scopes a script (``Host``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, ContextManager, Iterable, Iterator, Protocol

from workbench.debugger.outcomes import Error, Outcome, Pause, Quit, Say
from workbench.script.consent import Consent, ConsentRefused, consent_to_programs, question
from workbench.script.script_lines import command_lines, read_script

Run = Callable[[str], list[Outcome]]   # one command line -> what it answered
SAY = "say"


class Host(Protocol):
    """What the player needs of a session: a scope in which a script's lines run."""
    def running(self, script: Path, programs: frozenset[Path]) -> ContextManager[None]: ...


def narration(outcomes: Iterable[Outcome]) -> str:
    """The `say` lines among ``outcomes`` (a block) as one paragraph: joined with spaces."""
    return " ".join(o.text.strip() for o in outcomes if isinstance(o, Say)).strip()


@dataclass(frozen=True)
class Played:
    """One step: a command line, or a block of `say` lines (``lines``), and what it answered."""
    lines: tuple[tuple[int, str], ...]       # (line number, text) in the script
    outcomes: tuple[Outcome, ...]            # the errors left out: see ``errors``
    errors: tuple[str, ...]                  # file:line: reason

    @property
    def paused(self) -> bool:
        return any(isinstance(o, Pause) for o in self.outcomes)

    @property
    def quit(self) -> bool:
        return any(isinstance(o, Quit) for o in self.outcomes)

    @property
    def narration(self) -> str:
        return narration(self.outcomes)


@dataclass
class Player:
    """A script played a step at a time. ``open`` reads it; ``agree`` (once) settles the host
    programs it may run; ``step`` runs the next step."""
    script: Path
    text: str
    lines: list[tuple[int, str]] = field(init=False)
    programs: frozenset[Path] | None = None   # None: consent not settled yet
    at: int = 0
    stopped: str | None = None                # the error that stopped it (file:line: reason)
    keep_going: bool = False                  # a failing line does not stop it (gewb run)

    def __post_init__(self) -> None:
        self.lines = command_lines(self.script, self.text)

    @classmethod
    def open(cls, script: Path) -> Player:
        """ScriptError when it is not there or not UTF-8."""
        return cls(script, read_script(script))

    @property
    def question(self) -> str | None:
        """What a face that asks shows the user before playing (None: nothing to agree to)."""
        return question(self.script, self.text)

    def agree(self, consent: Consent) -> None:
        """The programs this script may run; ConsentRefused, naming them, if not agreed."""
        self.programs = consent_to_programs(self.script, self.text, consent)

    @property
    def done(self) -> bool:
        return self.stopped is not None or self.at >= len(self.lines)

    def next_line(self) -> str | None:
        """The line the next step runs first (what a face echoes before it answers)."""
        return None if self.done else self.lines[self.at][1]

    def step(self, host: Host, run: Run) -> Played | None:
        """Run the next step: one command line, or every `say` line of a block."""
        if self.done:
            return None
        if self.programs is None:
            raise ConsentRefused(f"{self.script.name}: its host programs are not agreed to yet")
        block = block_at(self.lines, self.at)
        self.at += len(block)
        outcomes: list[Outcome] = []
        errors: list[str] = []
        with host.running(self.script.resolve(), self.programs):
            for lineno, line in block:
                answered = run(line)
                outcomes += [o for o in answered if not isinstance(o, Error)]
                errors += [f"{self.script.name}:{lineno}: {o.message}"
                           for o in answered if isinstance(o, Error)]
        played = Played(tuple(block), tuple(outcomes), tuple(errors))
        if played.errors and not self.keep_going:
            self.stopped = played.errors[0]
        if played.quit:   # in a script, `quit` stops there
            self.at = len(self.lines)
        return played

    def play(self, host: Host, run: Run) -> Iterator[Played]:
        """Every step to the end (a `pause` does not wait), the first that fails (unless
        ``keep_going``) or a `quit`."""
        while (played := self.step(host, run)) is not None:
            yield played


def block_at(lines: list[tuple[int, str]], at: int) -> list[tuple[int, str]]:
    """The lines of ``lines`` (a script's command lines) the step from ``at`` runs: one
    command line, or a block of `say` lines."""
    block = [lines[at]]
    if _is_say(block[0][1]):
        while at + len(block) < len(lines) and _is_say(lines[at + len(block)][1]):
            block.append(lines[at + len(block)])
    return block


def _is_say(line: str) -> bool:
    return line.split(None, 1)[0] == SAY
