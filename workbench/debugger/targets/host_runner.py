"""A host program (a user's script written against ``npu_emu.acl``) run as ``__main__`` on a
given World, with every fault and program error placed at the script's file:line, and every SQE
at the line that submitted it. `gewb devrun` and the debugger's host-program target both run
programs through here; the debugger's `where`, `list`, `backtrace` and the app's source pane
read the sites."""
from __future__ import annotations

import importlib
import linecache
import os
import pkgutil
import runpy
import sys
import threading
import traceback
from collections import Counter
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, ModuleType, TracebackType
from typing import Iterator, NoReturn

from npu_emu.acl.call_events import AclCallFailed, AclCallMade
from npu_emu.base.counted import counted
from npu_emu.base.errors import AclError
from npu_emu.base.gc_pause import collector_paused
from npu_emu.base.stream_name import rt_stream_name
from npu_emu.base.trace import TraceEvent
from npu_emu.runtime import FaultFound
from npu_emu.scheduler.events import SqeCompleted, SqeSubmitted
from npu_emu.world import World, current_runtime
from workbench.debugger.handle_names import CREATORS, HandleNames
from workbench.debugger.targets.host_lines import HostLine, line_hook
from workbench.debugger.unordered_writes import UnorderedWrites


@dataclass(frozen=True, slots=True)
class ProgramRaised(TraceEvent):
    """An exception is leaving the host program: emitted while its frames still exist, so
    `handle python-error stop` parks post-mortem with them inspectable."""
    file: str
    line: int
    error: str      # KeyError: 'key'


class ProgramExited(BaseException):
    """os._exit called by the program: the workbench's process must not end with it."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status



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


def program_frames(script: str, thread: int | None = None) -> list[FrameType]:
    """The frames in ``script`` of the parked program, innermost first; none when no thread
    is inside it (not started, or finished). Only a run's worker runs the script, and one run
    at a time is alive, so without the worker's id the thread found in the script is it."""
    # A collection inside _current_frames can deadlock the interpreter on CPython before
    # 3.11.9 (gh-106883: the collector runs holding the thread states' lock); it did here,
    # one `up` in a few hundred sessions.
    with collector_paused():
        frames = sys._current_frames()
    for top in [frames[thread]] if thread in frames else list(frames.values()):
        found = []
        frame = top
        while frame is not None:
            if frame.f_code.co_filename == script:
                found.append(frame)
            frame = frame.f_back
        if found:
            return found
    return []


def source_line(frame: FrameType) -> SourceLine:
    """A frame's line as the debugger shows it."""
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
        self.failed_calls: list[tuple[str, SourceLine | None]] = []   # AclCallFailed, placed
        self.thread: int | None = None   # the thread running the script: its frames are there
        self.raised: TracebackType | None = None   # while an exception leaves the program
        self.names = HandleNames()   # streams and events by the program's variables
        self.unordered = UnorderedWrites()

    def __call__(self, ev: TraceEvent) -> None:
        self.unordered(ev)
        if self.names.pending and isinstance(ev, (HostLine, AclCallMade)):
            self.names.learn(self.frame(sys._getframe()), current_runtime())
        if isinstance(ev, AclCallMade):
            self.names.pending = ev.api in CREATORS
        elif isinstance(ev, SqeCompleted):
            self.sqes[(ev.task.stream.id, ev.task.type.name)] += 1
            self.end_ns = max(self.end_ns, ev.time_ns)
        elif isinstance(ev, SqeSubmitted):
            site = self.site(sys._getframe())
            task = ev.task
            if site is not None and task.stream is not None:
                self.submitted[(task.stream.id, task.pos)] = Submitted(
                    site, f"{task.type.name.lower()} {task.name}")
        elif isinstance(ev, AclCallFailed):
            site = self.site(sys._getframe())
            where = f"{Path(self.script).name}:{site.line}: " if site is not None else ""
            text = f"{where}{ev.api} returned {ev.code_name} ({ev.code}): " \
                   f"{self.names.text(ev.message)}"
            self.failed_calls.append((text, site))
            self.fault_sites.append((f"{ev.api} returned {ev.code_name}", site))
        elif isinstance(ev, FaultFound):
            site = self.site(sys._getframe())
            message = self.names.text(ev.message)
            self.fault_sites.append((f"{ev.fault}: {message}", site))
            where = f"{Path(self.script).name}:{site.line}: " if site is not None else ""
            self.faults.append(f"{where}{ev.fault}: {message}")

    def frame(self, frame: FrameType | None) -> FrameType | None:
        """The innermost frame of the user's script, if any."""
        while frame is not None and frame.f_code.co_filename != self.script:
            frame = frame.f_back
        return frame

    def site(self, frame: FrameType | None) -> SourceLine | None:
        found = self.frame(frame)
        return source_line(found) if found is not None else None

    def frames(self) -> tuple[SourceLine, ...]:
        """Where the parked program is, innermost first."""
        return tuple(source_line(f) for f in self.live_frames())

    def live_frames(self) -> list[FrameType]:
        """The parked program's frames in the script, innermost first: post-mortem, those of
        the exception leaving it; else those of the thread running it."""
        if self.raised is not None:
            return [f for f, _ in reversed(list(traceback.walk_tb(self.raised)))
                    if f.f_code.co_filename == self.script]
        return program_frames(self.script, self.thread)

    def order_hint(self) -> str:
        """One line when streams wrote device memory with nothing ordering them ("" if not),
        for a run without the race check."""
        pairs = self.unordered.pairs()
        if not pairs:
            return ""
        shown = " and ".join(self.names.text(f"stream {rt_stream_name(s)}") for s in pairs[0])
        more = f" (and {len(pairs) - 1} more pairs)" if len(pairs) > 1 else ""
        return (f"hint: {shown} wrote device memory with nothing ordering them{more}; the "
                f"race check (set race-check on, devrun --race-check) says if they race")

    def failed_summary(self) -> str:
        """`2 API calls failed, the first at prog.py:8` ("" when none did)."""
        if not self.failed_calls:
            return ""
        n = len(self.failed_calls)
        site = self.failed_calls[0][1]
        first = f"{Path(self.script).name}:{site.line}" if site else "outside the script"
        return (f"{counted(n, 'API call')} failed, the first at {first} "
                f"(acl.get_recent_err_msg() says why each time)")

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


def run_program(script: Path, world: World, observer: HostProgramObserver,
                trace_lines: bool = False) -> tuple[int, str, tuple[str, ...]]:
    """Run the host program ``script`` (resolved) as ``__main__`` in ``world``, then close the
    world's runtime. Returns the exit status, as Python's (an exception the program does not
    catch: 1, KeyboardInterrupt 130, os._exit(N) and sys.exit(N) N), one error line placed in
    the script if it failed, and the program's own traceback (its frames only). The
    workbench outlives whatever the program does: its streams are put back, os._exit ends
    only the program. ``trace_lines``: emit HostLine for each line (the debugger's)."""
    runtime = world.runtime
    error, status, tb = "", 0, ()
    argv, streams = sys.argv, (sys.stdout, sys.stderr, sys.stdin)
    sys.argv = [str(script)]
    observer.thread = threading.get_ident()
    try:
        with world.entered(), _exit_ends_only_the_program(), _acl_importable():
            try:
                with line_hook(script, world.bus) if trace_lines else nullcontext():
                    runpy.run_path(str(script), run_name="__main__")
            except SystemExit as exc:
                status, error = _exit_status(exc.code)
            except ProgramExited as exc:
                status = exc.status
                error = f"os._exit({exc.status})"
            except (Exception, KeyboardInterrupt) as exc:
                status = 130 if isinstance(exc, KeyboardInterrupt) else 1
                tb = program_traceback(exc, observer.script)
                error = f"{observer.where_tb(exc.__traceback__)}{exception_line(exc)}"
                _post_mortem(exc, observer, world)
                if isinstance(exc, AclError):
                    raise
            runtime.finish()   # streams left waiting forever are faults, as at acl.finalize
    except AclError as exc:   # faults the runtime found are already reported; others are not
        status = 1
        if runtime.faults and str(exc) in runtime.faults[-1].message:
            error, tb = "", ()
        elif not error:
            error = f"{observer.where_tb(exc.__traceback__)}{type(exc).__name__}: {exc}"
    finally:
        sys.argv = argv
        sys.stdout, sys.stderr, sys.stdin = streams   # a program may have replaced them
        runtime.close()
    return status, error, tb


def _exit_status(code: object) -> tuple[int, str]:
    """sys.exit's argument as Python's exit: None 0, an int itself, anything else 1 with
    its text (Python prints it to stderr)."""
    if code is None:
        return 0, ""
    if isinstance(code, int):
        return code, ""
    return 1, str(code)


def _post_mortem(exc: BaseException, observer: HostProgramObserver, world: World) -> None:
    frames = [(f, line) for f, line in traceback.walk_tb(exc.__traceback__)
              if f.f_code.co_filename == observer.script]
    line = frames[-1][1] if frames else 0
    observer.fault_sites.append((exception_line(exc),
                                 source_line(frames[-1][0]) if frames else None))
    observer.raised = exc.__traceback__
    try:
        world.bus.emit(ProgramRaised, Path(observer.script).name, line, exception_line(exc))
    finally:
        observer.raised = None


def program_traceback(exc: BaseException, script: str) -> tuple[str, ...]:
    """Python's traceback of ``exc`` with the program's frames only, not the workbench's."""
    name = Path(script).name
    lines = ["Traceback (most recent call last):"]
    for frame, line in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename == script:
            lines.append(f'  File "{name}", line {line}, in {frame.f_code.co_name}')
            text = linecache.getline(script, line).strip()
            if text:
                lines.append(f"    {text}")
    lines.append(exception_line(exc))
    return tuple(lines)


def exception_line(exc: BaseException) -> str:
    """`KeyError: 'key'`, `KeyboardInterrupt`: the class by its own name (the emulator's
    errors without their module path)."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


_acl_lock = threading.Lock()
_acl_users = 0   # programs running with the alias in place (a re-run may start as one ends)
_ACL_ALIASES: dict[str, ModuleType] = {}   # the names put in sys.modules while they run


@contextmanager
def _acl_importable() -> Iterator[None]:
    """``import acl``, as a script written for a real board has it, imports the emulator's
    pyACL (npu_emu.acl) while a program runs: such a script runs here unedited. An ``acl``
    the process already has is left as it is, and none of its names aliased; the aliases go
    when the last program using them ends."""
    global _acl_users
    with _acl_lock:
        if _acl_users == 0 and "acl" not in sys.modules:   # else another acl is the program's
            _ACL_ALIASES.update(_acl_modules())
            sys.modules.update(_ACL_ALIASES)
        _acl_users += 1
    try:
        yield
    finally:
        with _acl_lock:
            _acl_users -= 1
            if _acl_users == 0:
                for name, module in _ACL_ALIASES.items():
                    if sys.modules.get(name) is module:
                        del sys.modules[name]
                _ACL_ALIASES.clear()


def _acl_modules() -> dict[str, ModuleType]:
    """``acl`` and each of its submodules (``acl.rt``, ``acl.constants``, ...) as the
    emulator's: every one, imported now, so that a program's ``import acl.X`` finds the
    module npu_emu.acl itself uses, not a second copy left behind under the alias."""
    import npu_emu.acl as emulated
    modules = {"acl": emulated}
    for info in pkgutil.iter_modules(emulated.__path__):
        modules[f"acl.{info.name}"] = importlib.import_module(f"npu_emu.acl.{info.name}")
    return modules


@contextmanager
def _exit_ends_only_the_program() -> Iterator[None]:
    """os._exit from the program's thread unwinds the program (ProgramExited) instead of
    ending the process, which would leave the terminal on the app's alternate screen."""
    real, thread = os._exit, threading.get_ident()

    def program_exit(status: int) -> NoReturn:
        if threading.get_ident() != thread:
            real(status)
        raise ProgramExited(status)
    os._exit = program_exit
    try:
        yield
    finally:
        os._exit = real
