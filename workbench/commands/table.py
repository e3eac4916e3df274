"""The one command table: every command of every face, by name and alias."""
from __future__ import annotations

import difflib

from workbench.commands import (breaking, control, host_commands, inspecting,
                                session_commands, source_commands)
from workbench.commands.command import Command, UsageError
from workbench.script.lesson import CommandWords


class CommandTable:
    def __init__(self, commands: list[Command]) -> None:
        self._by_name: dict[str, Command] = {}
        for cmd in commands:
            for name in (cmd.name, *cmd.aliases):
                if name in self._by_name:
                    raise ValueError(f"command name {name!r} used twice")
                self._by_name[name] = cmd

    def lookup(self, name: str) -> Command:
        cmd = self._by_name.get(name)
        if cmd is None:
            near = difflib.get_close_matches(name, self._by_name, n=3)
            hint = f" (did you mean {', '.join(near)}?)" if near else " (help lists them)"
            raise UsageError(f"unknown command {name!r}{hint}")
        return cmd

    def names(self) -> list[str]:
        return sorted(self._by_name)

    def unique(self) -> list[Command]:
        return list(dict.fromkeys(self._by_name.values()))


COMMANDS = CommandTable(control.COMMANDS + breaking.COMMANDS + inspecting.COMMANDS
                        + source_commands.COMMANDS + host_commands.COMMANDS
                        + session_commands.COMMANDS)
QUIT = (COMMANDS.lookup("quit").name, *COMMANDS.lookup("quit").aliases)   # faces leave at once

def _names(*commands: str) -> frozenset[str]:
    return frozenset(name for cmd in map(COMMANDS.lookup, commands)
                     for name in (cmd.name, *cmd.aliases))


# What a lesson's pause rule tells apart (lesson.py). The commands that move the target (run
# it, rewind it, reopen it): what a lesson's narration says about where the target is holds
# only until the next one.
LESSON_WORDS = CommandWords(
    moving=_names(*(cmd.name for cmd in control.COMMANDS), "target", "set", "source"),
    to_a_hit=_names("continue", "reverse-continue"),
    inside=_names("step", "next", "finish"),
    arming=_names("break", "watch"),
    disarming=_names("delete", "disable"))
