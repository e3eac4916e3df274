"""Commands about the session itself: the target and its settings, saving the session as a
script, a lesson's say and pause, help."""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.commands import sources
from workbench.commands.command import Command, UsageError
from workbench.debugger.outcomes import Outcome, Pause, Printed, Say, TableOutcome
from workbench.debugger.targets import settings as settings_mod

if TYPE_CHECKING:
    from workbench.commands.session import Session


def _target(s: Session, args: list[str]) -> list[Outcome]:
    if len(args) != 1:
        raise UsageError("usage: target FILE.onnx | FILE.om | FILE.py | light:NAME")
    return [Printed(f"target {s.open(args[0]).label}")]


def _set(s: Session, args: list[str]) -> list[Outcome]:
    if len(args) != 2:
        raise UsageError(f"usage: set NAME VALUE ({', '.join(settings_mod.names())})")
    s.configure(args[0], args[1])
    note = " (the target restarts)" if s.debugger is not None else ""
    return [Printed(f"{args[0]} = {args[1]}{note}")]


def _save_script(s: Session, args: list[str]) -> list[Outcome]:
    if len(args) != 1:
        raise UsageError("usage: save-script FILE.gwb")
    path = s.path(args[0])
    lines = [_relocated(line, s.base_dir, path.parent) for line in s.recorded_lines()]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# GE Workbench session (gewb run replays it)\n" + "".join(
        line + "\n" for line in lines))
    return [Printed(f"saved {len(lines)} commands to {args[0]}")]


def _relocated(line: str, base: Path, script_dir: Path) -> str:
    """A `target` line's relative path, made relative to where the script is saved (scripts
    resolve paths against their own directory)."""
    words = line.split()
    if len(words) != 2 or words[0] != "target" or words[1].startswith("light:") \
            or os.path.isabs(words[1]) or base.resolve() == script_dir.resolve():
        return line
    return f"target {os.path.relpath(base / words[1], script_dir)}"


def _help(s: Session, args: list[str]) -> list[Outcome]:
    if not args:
        rows = tuple((c.name, c.usage) for c in s.commands.unique())
        return [TableOutcome("commands (help COMMAND for more)", ("command", "usage"), rows)]
    cmd = s.commands.lookup(args[0])
    aliases = f"\n  aliases: {', '.join(cmd.aliases)}" if cmd.aliases else ""
    return [Printed(f"{cmd.usage}\n  {cmd.help}{aliases}")]


COMMANDS = [
    Command("target", "target FILE.onnx | FILE.om | FILE.py | light:NAME",
            "Debug an ONNX model (parse > compile > execute), an OM file or a host program "
            "written against npu_emu.acl. Breakpoints and watches are kept.", _target,
            lambda s, w, p: sources.files(s, p, (".onnx", ".om", ".py")) if not w else []),
    Command("set", "set NAME VALUE",
            "Change a target setting; the target restarts. "
            + "; ".join(f"{k}: {v}" for k, v in settings_mod.HELP.items()) + ".", _set,
            lambda s, w, p: settings_mod.names() if not w else
            (["on", "off"] if w[0] == "race-check" else [])),
    Command("save-script", "save-script FILE.gwb",
            "Save the target, its settings and the commands so far as a script that "
            "`gewb run` replays to the same transcript.", _save_script,
            lambda s, w, p: sources.files(s, p, (".gwb",)), record=False),
    Command("say", "say TEXT", "A lesson's narration: shown, then the lesson goes on.",
            lambda s, a: [Say(a[0] if a else "")], raw=True),
    Command("pause", "pause", "A lesson waits here for the reader (scripts run on).",
            lambda s, a: [Pause()]),
    Command("help", "help [COMMAND]", "The commands, or one command's help.", _help,
            lambda s, w, p: s.commands.names() if not w else [], ("h", "?")),
]
