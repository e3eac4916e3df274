"""A command: its name, usage and help, what it does, and how its arguments complete."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from workbench.debugger.outcomes import Outcome, TableOutcome

if TYPE_CHECKING:
    from workbench.commands.session import DebugSession

Handler = Callable[["DebugSession", list[str]], list[Outcome]]
# (session, the words before the one being typed, its start) -> candidates for it
Completer = Callable[["DebugSession", list[str], str], list[str]]


class UsageError(ValueError):
    """A command used wrongly: the message says how to use it."""


@dataclass(frozen=True)
class Command:
    name: str
    usage: str
    help: str
    run: Handler
    complete: Completer | None = None
    aliases: tuple[str, ...] = ()
    raw: bool = False      # the handler takes the rest of the line as one word (say, break)
    record: bool = True    # save-script keeps it
    help_table: Callable[[], TableOutcome] | None = None   # `help NAME` shows it below the text

    @property
    def summary(self) -> str:
        """The help's first sentence: the one line `help` lists the command with."""
        return re.split(r"(?<![ (]e\.g)\.\s", self.help, maxsplit=1)[0].rstrip(".")


def count_arg(args: list[str], usage: str, at: int = 0) -> int:
    """An optional repeat count (`step pass 3`, `next 5`)."""
    if len(args) <= at:
        return 1
    if len(args) > at + 1 or not args[at].isdecimal() or int(args[at]) < 1:
        raise UsageError(f"usage: {usage}")
    return int(args[at])


def number(text: str, what: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise UsageError(f"{what} must be a number, not {text!r}") from None
