"""pdb's commands for a host program's frames: `up`, `down`, `info locals`, and `print EXPR`
evaluated in the selected frame (host_frames.py). `backtrace` and `list` (source_commands.py)
show the same selection."""
from __future__ import annotations

from types import FrameType
from typing import TYPE_CHECKING

from workbench.commands.command import Command, UsageError, count_arg
from workbench.debugger.host_frames import evaluate, local_names
from workbench.debugger.outcomes import Outcome, Printed, TableOutcome

if TYPE_CHECKING:
    from workbench.commands.session import DebugSession
    from workbench.debugger.engine import Debugger


def selected_frame(d: Debugger, what: str) -> FrameType:
    """The host frame `up` and `down` selected; a UsageError saying why there is none."""
    if not d.target.runs_code:
        raise UsageError(f"{what}: {d.target.path.name} is an {d.target.kind}, with no Python "
                         f"frames")
    frames = d.host_frames()
    if not frames:
        state = "has not started" if not d.run.started else \
            "has finished" if d.run.finished else "is not inside its script"
        raise UsageError(f"{what}: the program {state}")
    d.frame = min(d.frame, len(frames) - 1)
    return frames[d.frame]


def frame_line(d: Debugger, index: int, frame: FrameType) -> str:
    from workbench.debugger.targets.host_runner import source_line   # (a program's: loaded)
    here = source_line(frame)
    return f"#{index}  {d.target.path.name}:{here.line} in {here.function}: {here.text}"


def _move(outward: bool):
    def run(s: DebugSession, args: list[str]) -> list[Outcome]:
        name = "up" if outward else "down"
        d = s.debugger_or_fail()
        selected_frame(d, name)
        n = count_arg(args, f"{name} [N]")
        frames = d.host_frames()
        target = d.frame + n if outward else d.frame - n
        if not 0 <= target < len(frames):
            raise UsageError(f"{name}: no frame {'above' if outward else 'below'} #{d.frame} "
                             f"(the program has {len(frames)})")
        d.frame = target
        return [Printed(frame_line(d, target, frames[target]))]
    return run


def locals_table(d: Debugger) -> Outcome:
    frame = selected_frame(d, "info locals")
    rows = tuple(local_names(frame))
    title = f"locals of #{d.frame} {frame.f_code.co_name}"
    return TableOutcome(title, ("name", "value"), rows) if rows else Printed(f"{title}: none")


def print_expression(d: Debugger, text: str) -> Outcome:
    """`print EXPR`: Python in the selected frame, with the program's rights (the consent
    that let it run covers this); its value's repr."""
    frame = selected_frame(d, "print")
    try:
        return Printed(f"{text} = {evaluate(frame, text, d.run.world)}")
    except ValueError as exc:
        raise UsageError(f"print {text}: {exc}") from None


COMMANDS = [
    Command("up", "up [N]", "Select the host program's frame N calls out (its caller): "
                            "print, info locals and list use it.", _move(True)),
    Command("down", "down [N]", "Select the host frame N calls in (back towards where the "
                                "program is parked).", _move(False)),
]
