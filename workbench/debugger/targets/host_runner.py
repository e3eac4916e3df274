"""A host program (a user's script written against ``npu_emu.acl``) run as ``__main__`` on a
given World, with every fault and program error placed at the script's file:line. `gewb devrun`
and the debugger's host-program target both run programs through here."""
from __future__ import annotations

import runpy
import sys
import traceback
from collections import Counter
from pathlib import Path
from types import FrameType, TracebackType

from npu_emu.errors import AclError
from npu_emu.runtime import FaultFound
from npu_emu.task_scheduler import SqeCompleted
from npu_emu.trace import TraceEvent
from npu_emu.world import World


class HostProgramObserver:
    """Counts retired SQEs per stream and type, and places each fault in the user's script."""

    def __init__(self, script: Path) -> None:
        self.script = str(script)
        self.sqes: Counter[tuple[int, str]] = Counter()
        self.faults: list[str] = []
        self.end_ns = 0

    def __call__(self, ev: TraceEvent) -> None:
        if isinstance(ev, SqeCompleted):
            self.sqes[(ev.task.stream.id, ev.task.type.name)] += 1
            self.end_ns = max(self.end_ns, ev.time_ns)
        elif isinstance(ev, FaultFound):
            self.faults.append(f"{self.where(sys._getframe())}{ev.fault}: {ev.message}")

    def where(self, frame: FrameType | None) -> str:
        """``file:line: `` of the innermost frame of the user's script, if any."""
        while frame is not None:
            if frame.f_code.co_filename == self.script:
                return f"{Path(self.script).name}:{frame.f_lineno}: "
            frame = frame.f_back
        return ""

    def where_tb(self, tb: TracebackType | None) -> str:
        last = ""
        for frame, line in traceback.walk_tb(tb):
            if frame.f_code.co_filename == self.script:
                last = f"{Path(self.script).name}:{line}: "
        return last


def run_program(script: Path, world: World, observer: HostProgramObserver) -> tuple[int, str]:
    """Run the host program ``script`` (resolved) as ``__main__`` in ``world``, then close the
    world's runtime. Returns the exit status and, if the program failed, one
    error line placed in the script."""
    runtime = world.runtime
    error = ""
    status = 0
    argv = sys.argv
    sys.argv = [str(script)]
    try:
        with world.entered():
            runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except AclError as exc:   # faults the runtime found are already reported; others are not
        if not runtime.faults or str(exc) not in runtime.faults[-1].message:
            error = f"{observer.where_tb(exc.__traceback__)}{type(exc).__name__}: {exc}"
    except Exception as exc:  # the user's program failed: one line, where it failed
        error = f"{observer.where_tb(exc.__traceback__)}{type(exc).__name__}: {exc}"
    finally:
        sys.argv = argv
        runtime.close()
    return status, error
