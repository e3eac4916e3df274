"""Commands about the session itself: the target and its settings, saving the session as a
script and running one (source), a lesson's say and pause, help, quit."""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.commands import sources
from workbench.commands.command import Command, UsageError
from workbench.commands.render import PROMPT, echoed
from workbench.debugger.outcomes import (Error, Outcome, Pause, Printed, Quit, Say, Show,
                                         TableOutcome)
from workbench.debugger.targets import settings as settings_mod
from workbench.script.consent import PROGRAMS_TAG
from workbench.script.player import Player

if TYPE_CHECKING:
    from workbench.commands.session import DebugSession

SOURCE_DEPTH = 32   # scripts sourcing scripts: past this, one line (not Python's RecursionError)


def _target(s: DebugSession, args: list[str]) -> list[Outcome]:
    if len(args) != 1:
        raise UsageError("usage: target FILE.onnx | FILE.om | FILE.py | light:NAME")
    return [Printed(f"target {s.open(args[0]).label}")]


def _set(s: DebugSession, args: list[str]) -> list[Outcome]:
    if len(args) != 2:
        raise UsageError(f"usage: set NAME VALUE ({', '.join(settings_mod.names())})")
    s.configure(args[0], args[1])
    note = " (the target restarts)" if s.debugger is not None else ""
    return [Printed(f"{args[0]} = {args[1]}{note}")]


def _save_script(s: DebugSession, args: list[str]) -> list[Outcome]:
    if len(args) != 1:
        raise UsageError("usage: save-script FILE.gwb")
    path = s.base_dir / args[0]
    lines = [_relocated(line, s.base_dir, path.parent) for line in s.recorded_lines()]
    programs = dict.fromkeys(line.split()[1] for line in lines
                             if line.startswith("target ") and line.lower().endswith(".py"))
    header = "# GE Workbench session (gewb run replays it)\n" + (
        f"#   {PROGRAMS_TAG} {' '.join(programs)}\n" if programs else "")
    text = header + "".join(line + "\n" for line in lines)
    s.save(args[0], {path.name: text}, "save-script")
    return [Printed(f"saved {len(lines)} commands to {args[0]}")]


def _relocated(line: str, base: Path, script_dir: Path) -> str:
    """A `target` or `source` line's relative path, made relative to where the script is saved
    (scripts resolve paths against their own directory)."""
    words = line.split()
    if len(words) != 2 or words[0] not in ("target", "source") or \
            words[1].startswith("light:") or os.path.isabs(words[1]) or \
            base.resolve() == script_dir.resolve():
        return line
    return f"{words[0]} {os.path.relpath(base / words[1], script_dir)}"


def _source(s: DebugSession, args: list[str]) -> list[Outcome]:
    """A script's command lines, run in this session as if typed (gdb's source), by the one
    player: the host programs its header names only with the user's consent, the first line
    that fails stops it."""
    if len(args) != 1:
        raise UsageError("usage: source FILE.gwb")
    script = s.path(args[0])
    if not script.is_file():
        raise UsageError(f"no such script: {args[0]}")
    if script.resolve() in s.scripts:
        raise UsageError(f"source {args[0]}: it is running already (a script sourcing itself)")
    if len(s.scripts) >= SOURCE_DEPTH:
        raise UsageError(f"source {args[0]}: scripts nest deeper than the source nesting limit "
                         f"({SOURCE_DEPTH})")
    player = Player.open(script)
    player.agree(s.consent)
    outcomes: list[Outcome] = []
    for played in player.play(s, lambda line: s.run_line(line)[0]):
        outcomes += [Printed(PROMPT + line) for _, line in played.lines if echoed(line)]
        outcomes += played.outcomes
    return outcomes + ([Error(player.stopped)] if player.stopped else [])


# the app's panes, as `show` names them (and the app's pane keys 1..7 order them)
PANES = ("graph", "passes", "device", "memory", "timeline", "source", "log")


def _show(s: DebugSession, args: list[str]) -> list[Outcome]:
    """A lesson chooses the app's pane: plain data the app acts on; the REPL and a transcript
    show nothing (there is no pane to bring forward)."""
    if len(args) != 1 or args[0] not in PANES:
        raise UsageError(f"usage: show {'|'.join(PANES)}")
    return [Show(args[0])]


def _help(s: DebugSession, args: list[str]) -> list[Outcome]:
    if not args:
        rows = tuple((c.usage, c.summary) for c in s.commands.unique())
        return [TableOutcome("commands (help COMMAND for more)", ("usage", "does"), rows)]
    cmd = s.commands.lookup(args[0])
    aliases = f"\n  aliases: {', '.join(cmd.aliases)}" if cmd.aliases else ""
    table = [cmd.help_table()] if cmd.help_table is not None else []
    return [Printed(f"{cmd.usage}\n  {cmd.help}{aliases}")] + table


def _settings_table() -> TableOutcome:
    return TableOutcome("settings (GE's options: ge_core/ge_options.py)",
                        ("setting", "GE option", "default", "meaning"),
                        tuple(settings_mod.help_rows()))


COMMANDS = [
    Command("target", "target FILE.onnx | FILE.om | FILE.py | light:NAME",
            "Debug an ONNX model (parse > compile > execute), an OM file or a pyACL host "
            "program (`import acl` is the emulator's). Breakpoints and watches are kept.", _target,
            lambda s, w, p: sources.files(s, p, (".onnx", ".om", ".py")) if not w else []),
    Command("set", "set NAME VALUE",
            "Change a target setting; the target restarts. The settings after the debugger's "
            "own are GE's options, named as `gewb compile` and `gewb exec` name them.", _set,
            lambda s, w, p: settings_mod.names() if not w else
            settings_mod.choices(w[0]) if len(w) == 1 else [],
            help_table=_settings_table),
    Command("save-script", "save-script FILE.gwb",
            "Save the target, its settings and the commands so far as a script that "
            "`gewb run` replays to the same transcript.", _save_script,
            lambda s, w, p: sources.files(s, p, (".gwb",)), record=False),
    Command("source", "source FILE.gwb",
            "Run a script's commands here, as if typed. A script that runs host programs "
            "names them in its `# programs:` header, and they run only if you agree (y/N).",
            _source, lambda s, w, p: sources.files(s, p, (".gwb",)) if not w else []),
    Command("say", "say TEXT", "A lesson's narration: shown, then the lesson goes on.",
            lambda s, a: [Say(a[0] if a else "")], raw=True),
    Command("pause", "pause", "A lesson waits here for the reader (scripts run on).",
            lambda s, a: [Pause()]),
    Command("show", f"show {'|'.join(PANES)}",
            "A lesson brings a pane of the app forward (as its key 1..7 would); the REPL and "
            "`gewb run` show nothing.", _show, lambda s, w, p: list(PANES) if not w else []),
    Command("help", "help [COMMAND]", "The commands, or one command's help.", _help,
            lambda s, w, p: s.commands.names() if not w else [], ("h", "?")),
    Command("quit", "quit", "Leave the debugger (Ctrl-D too); in a script, stop there.",
            lambda s, a: [Quit()], aliases=("exit", "q"), record=False),
]
