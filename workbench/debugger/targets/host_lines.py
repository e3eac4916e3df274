"""The host program's lines as trace events: a line hook (sys.settrace) on the program's own
frames emits HostLine before each line runs, so Python lines and SQEs share one tick order.
Line breakpoints, `step line`, `next line` and `finish` stop on these events; Ctrl-C parks a
busy loop at its next line, and closing a run unwinds it there (StepGate: abandon points).
Only the debugger installs the hook: `gewb devrun` runs the program untraced, at full speed."""
from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, ClassVar, Iterator

from npu_emu.base.trace import TraceBus, TraceEvent


@dataclass(frozen=True, slots=True)
class HostLine(TraceEvent):
    file: str       # the script's name, as `break FILE:LINE` names it
    line: int
    function: str
    depth: int      # the program's frames on the stack: `next line` and `finish` compare it
    abandon_point: ClassVar[bool] = True   # a closed run unwinds here (StepGate.close)


def program_depth(frame: FrameType | None, script: str) -> int:
    depth = 0
    while frame is not None:
        depth += frame.f_code.co_filename == script
        frame = frame.f_back
    return depth


@contextmanager
def line_hook(script: Path, bus: TraceBus) -> Iterator[None]:
    """Emit HostLine for each line the calling thread runs in ``script``'s frames."""
    path, name = str(script), script.name

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            bus.emit(HostLine, name, frame.f_lineno, frame.f_code.co_name,
                     program_depth(frame, path))
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        # Every Python call asks; only the program's own frames get the line tracer.
        return local if frame.f_code.co_filename == path else None

    previous = sys.gettrace()
    sys.settrace(calls)
    try:
        yield
    finally:
        sys.settrace(previous)
