"""A host program (a user's script written against ``npu_emu.acl``) run as ``__main__`` on a
given World, with every fault and program error placed at the script's file:line, and every SQE
at the line that submitted it. `gewb devrun` and the debugger's host-program target both run
programs through here; the debugger's `where`, `list`, `backtrace` and the app's source pane
read the sites."""
from __future__ import annotations

import linecache
import runpy
import sys
import threading
import traceback
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, TracebackType

from npu_emu.base.errors import AclError
from npu_emu.base.trace import TraceEvent
from npu_emu.runtime import FaultFound
from npu_emu.scheduler.events import SqeCompleted, SqeSubmitted
from npu_emu.world import World


@dataclass(frozen=True)
class SourceLine:
    """A line of the script: its number, the function it is in, its text."""
    line: int
    function: str
    text: str


@dataclass(frozen=True)
class Submitted:
    """An SQE the script submitted: where, and what (``event_record EventRecord(e0)``)."""
    site: SourceLine
    what: str


def parked_frames(script: str, thread: int | None = None) -> tuple[SourceLine, ...]:
    """The frames in ``script`` of the parked program, innermost first; none when no thread
    is inside it (not started, or finished). Only a run's worker runs the script, and one run
    at a time is alive, so without the worker's id the thread found in the script is it."""
    frames = sys._current_frames()
    for top in [frames[thread]] if thread in frames else list(frames.values()):
        found = []
        frame = top
        while frame is not None:
            if frame.f_code.co_filename == script:
                found.append(_source_line(frame))
            frame = frame.f_back
        if found:
            return tuple(found)
    return ()


def _source_line(frame: FrameType) -> SourceLine:
    return SourceLine(frame.f_lineno, frame.f_code.co_name,
                      linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip())


class HostProgramObserver:
    """Counts retired SQEs per stream and type, places each fault in the user's script, and
    notes the line that submitted each SQE. AutoSplit submits a model's SQEs at its build end:
    that line, then."""

    def __init__(self, script: Path) -> None:
        self.script = str(script)
        self.sqes: Counter[tuple[int, str]] = Counter()
        self.faults: list[str] = []
        self.end_ns = 0
        self.submitted: dict[tuple[int, int], Submitted] = {}   # (stream id, SQE) -> its line
        self.fault_sites: list[tuple[str, SourceLine | None]] = []
        self.thread: int | None = None   # the thread running the script: its frames are there

    def __call__(self, ev: TraceEvent) -> None:
        if isinstance(ev, SqeCompleted):
            self.sqes[(ev.task.stream.id, ev.task.type.name)] += 1
            self.end_ns = max(self.end_ns, ev.time_ns)
        elif isinstance(ev, SqeSubmitted):
            site = self.site(sys._getframe())
            task = ev.task
            if site is not None and task.stream is not None:
                self.thread = threading.get_ident()
                self.submitted[(task.stream.id, task.pos)] = Submitted(
                    site, f"{task.type.name.lower()} {task.name}")
        elif isinstance(ev, FaultFound):
            site = self.site(sys._getframe())
            self.fault_sites.append((f"{ev.fault}: {ev.message}", site))
            where = f"{Path(self.script).name}:{site.line}: " if site is not None else ""
            self.faults.append(f"{where}{ev.fault}: {ev.message}")

    def site(self, frame: FrameType | None) -> SourceLine | None:
        """The innermost frame of the user's script, if any."""
        while frame is not None:
            if frame.f_code.co_filename == self.script:
                return _source_line(frame)
            frame = frame.f_back
        return None

    def frames(self) -> tuple[SourceLine, ...]:
        """Where the parked program is, innermost first."""
        return parked_frames(self.script, self.thread)

    def where(self, event: TraceEvent | None) -> str:
        """``file:line in function`` of the line behind ``event``: the one that submitted its
        SQE, else the one the program is parked on ("" when neither is in the script)."""
        task = getattr(event, "task", None)
        submitted = self.submitted.get((task.stream.id, task.pos)) \
            if task is not None and task.stream is not None else None
        here = submitted.site if submitted is not None else next(iter(self.frames()), None)
        return f"{Path(self.script).name}:{here.line} in {here.function}" if here else ""

    def where_tb(self, tb: TracebackType | None) -> str:
        last = ""
        for frame, line in traceback.walk_tb(tb):
            if frame.f_code.co_filename == self.script:
                last = f"{Path(self.script).name}:{line}: "
        return last


def run_program(script: Path, world: World, observer: HostProgramObserver) -> tuple[int, str]:
    """Run the host program ``script`` (resolved) as ``__main__`` in ``world``, then close the
    world's runtime. Returns the exit status, as Python's (an exception the program does not
    catch: 1), and, if the program failed, one error line placed in the script."""
    runtime = world.runtime
    error = ""
    status = 0
    argv = sys.argv
    sys.argv = [str(script)]
    try:
        with world.entered():
            try:
                runpy.run_path(str(script), run_name="__main__")
            except SystemExit as exc:
                status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            runtime.finish()   # streams left waiting forever are faults, as at acl.finalize
    except AclError as exc:   # faults the runtime found are already reported; others are not
        status = 1
        if not runtime.faults or str(exc) not in runtime.faults[-1].message:
            error = f"{observer.where_tb(exc.__traceback__)}{type(exc).__name__}: {exc}"
    except Exception as exc:  # the user's program failed: one line, where it failed
        status = 1
        error = f"{observer.where_tb(exc.__traceback__)}{type(exc).__name__}: {exc}"
    finally:
        sys.argv = argv
        runtime.close()
    return status, error
