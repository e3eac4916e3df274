"""`list` and `backtrace`: where the parked target is, as a debugger shows it. A host program's
source lines around the line it is on, and its frames in the script; an ONNX model's frames
are the compile's (node < pass < stage < phase)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.commands.command import Command, UsageError, number
from workbench.debugger.outcomes import Outcome, Printed
from workbench.debugger.targets.target_kind import Capability
from workbench.debugger.views.host_source import compile_frames, window

if TYPE_CHECKING:
    from workbench.commands.session import DebugSession
    from workbench.debugger.engine import Debugger
    from workbench.debugger.targets.host_runner import SourceLine


def _frames(d: Debugger) -> tuple[SourceLine, ...]:
    """The host program's frames in its script, innermost first (none unless it runs)."""
    program = d.state.program if d.state is not None else None
    return program.frames() if program is not None else ()


def _list(s: DebugSession, args: list[str]) -> list[Outcome]:
    d = s.debugger_or_fail()
    if not d.target.kind.has(Capability.SOURCE):
        raise UsageError(f"list: {d.target.path.name} is an {d.target.kind.label}, not a host "
                         f"program "
                         f"(`print node NAME` and `diff` show its IR)")
    if len(args) > 1:
        raise UsageError("usage: list [LINE]")
    here = _frames(d)
    current = here[0].line if here else None
    center = number(args[0], "the line") if args else current
    if center is None:
        state = "has not started" if not d.run.started else "has finished"
        raise UsageError(f"list: the program {state}; `list LINE` shows a line")
    lines = [f"{'=>' if n == current else '  '}{n:4d}  {text}".rstrip()
             for n, text in window(d.target.path, center)]
    return [Printed(f"{d.target.path.name}:{center}\n" + "\n".join(lines))]


def _backtrace(s: DebugSession, args: list[str]) -> list[Outcome]:
    d = s.debugger_or_fail()
    if args:
        raise UsageError("usage: backtrace")
    if d.target.kind.has(Capability.SOURCE):
        here = _frames(d)
        if not here:
            return [Printed("no frames: the program is not running")]
        name = d.target.path.name
        return [Printed("\n".join(f"#{i}  {name}:{f.line} in {f.function}: {f.text}"
                                  for i, f in enumerate(here)))]
    frames = compile_frames(d.run.tracker)
    if not frames:
        return [Printed("no frames: not started" if not d.run.started else "no frames")]
    return [Printed("\n".join(f"#{i}  {f}" for i, f in enumerate(frames)))]


COMMANDS = [
    Command("list", "list [LINE]",
            "A host program's source around the line it is parked on (=>), or around LINE.",
            _list, aliases=("l",)),
    Command("backtrace", "backtrace",
            "The frames the target is in, innermost first: a host program's lines in its "
            "script; an ONNX model's node < pass < stage < phase.", _backtrace,
            aliases=("bt",)),
]
