"""Python evaluated in a host program's frame, as pdb evaluates it: a line breakpoint's or a
`break call` breakpoint's condition, `print EXPR` and `info locals`. The program already runs
with the user's rights and consent (a host program target runs only when agreed to), so
evaluating in its frames asks nothing more; an ONNX model has no such frames.

A condition is tested on the worker thread, inside the event: the innermost frame that is not
the workbench's, the emulator's or GE's is the program line that emitted it. `print` runs on
the face's thread while the worker is parked, on frames the host runner lists."""
from __future__ import annotations

import sys
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

from npu_emu.base.trace import TraceEvent
from npu_emu.world import World
from workbench.debugger.conditions import ConditionError, raised
from workbench.debugger.step_gate import passing_through

_ROOT = Path(__file__).resolve().parents[2]
_OWN = tuple(str(_ROOT / package) for package in ("npu_emu", "ge_core", "workbench"))
MAX_SHOWN = 2000   # characters of one value's repr


def program_frame() -> FrameType | None:
    """The caller's innermost frame outside this project's packages: the program's."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_OWN):
        frame = frame.f_back
    return frame


def compiled(text: str, what: str) -> CodeType:
    try:
        return compile(text, f"<{what}>", "eval")
    except SyntaxError as exc:
        raise ValueError(f"{what} {text!r}: {exc.msg}") from None


class FrameCondition:
    """``if EXPR`` of `break FILE:LINE` and `break call API`: Python in the program's frame."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.names: set[str] = set()   # any of the frame's names: nothing to check up front
        self._code = compiled(text, "condition")

    def holds(self, event: TraceEvent) -> bool:
        frame = program_frame()
        if frame is None:
            return False
        try:
            return bool(eval(self._code, frame.f_globals, frame.f_locals))
        except Exception as exc:   # the program's names and values: any error is the user's
            raise ConditionError(raised(exc)) from None


def evaluate(frame: FrameType, text: str, world: World) -> str:
    """``text`` evaluated in ``frame`` (in the run's World, so a facade call acts on the
    parked run's device), as a one-line repr or the error."""
    code = compiled(text, "expression")
    try:
        with world.entered(), passing_through(world.bus):
            return shown(eval(code, frame.f_globals, frame.f_locals))
    except Exception as exc:
        raise ValueError(raised(exc)) from None


def shown(value: Any) -> str:
    try:
        text = repr(value)
    except Exception as exc:   # a user's __repr__ may fail
        text = f"<unprintable {type(value).__name__}: {exc}>"
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN - 3] + "..."


def local_names(frame: FrameType) -> list[tuple[str, str]]:
    """The frame's locals as pdb's `locals()` shows them; at module level, the program's
    own globals (not modules, functions or dunders)."""
    names = frame.f_locals
    return [(name, shown(value)) for name, value in names.items()
            if not name.startswith("__") and not _is_definition(value)]


def _is_definition(value: Any) -> bool:
    return type(value).__name__ in ("module", "function", "type", "builtin_function_or_method")
