"""`gewb devrun SCRIPT.py`: run a host program written against ``npu_emu.acl`` on a fresh
emulated device, print the SQE trace summary and every fault found (deadlock, race, timeout,
device fault), and exit non-zero when there was one. A fault or a program error is one line,
with the script's file:line where it applies, never a traceback.
"""
from __future__ import annotations

import argparse
import runpy
import sys
import traceback
from collections import Counter
from pathlib import Path
from types import FrameType, TracebackType

from npu_emu.errors import AclError
from npu_emu.runtime import FaultFound, RuntimeConfig
from npu_emu.task_scheduler import SqeCompleted
from npu_emu.timeline import Timeline
from npu_emu.trace import TraceBus, TraceEvent
from npu_emu.world import World


class DevrunObserver:
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


def run_script(script: Path, race_check: bool, trace: str | None) -> int:
    from workbench.cli import UserError
    if not script.is_file():
        raise UserError(f"no such script: {script}")
    script = script.resolve()
    bus = TraceBus()
    observer = DevrunObserver(script)
    bus.subscribe(observer)
    timeline = Timeline()
    if trace:
        bus.subscribe(timeline)
    world = World(RuntimeConfig(race_check=race_check), bus=bus)
    status, error = run_program(script, world, observer)
    _print_summary(observer)
    if trace:
        timeline.write(trace)
        print(f"timeline written to {trace}")
    for line in observer.faults:
        print(f"fault: {line}")
    if error:
        print(f"error: {error}")
    return 1 if (observer.faults or error) else status


def run_program(script: Path, world: World, observer: DevrunObserver) -> tuple[int, str]:
    """Run the host program ``script`` (resolved) as ``__main__`` in ``world``, then close the
    world's runtime. Returns the exit status and, if the program failed, one error line placed
    in the script (the debugger runs programs through here too)."""
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


def _print_summary(observer: DevrunObserver) -> None:
    total = sum(observer.sqes.values())
    streams = sorted({sid for sid, _ in observer.sqes})
    print(f"devrun: {total} SQEs retired on {len(streams)} streams in "
          f"{observer.end_ns / 1000:.3f} us of device time")
    for sid in streams:
        kinds = ", ".join(f"{name} {n}" for (s, name), n in sorted(observer.sqes.items())
                          if s == sid)
        print(f"  stream {sid}: {kinds}")


def _cmd_devrun(args: argparse.Namespace) -> int:
    return run_script(Path(args.script), args.race_check, args.trace)


def add_devrun_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("devrun", help="run a host program written against npu_emu.acl on the "
                                      "emulated NPU; report deadlocks, races and timeouts")
    p.add_argument("script", help="a Python host program (pyACL idiom, import npu_emu.acl)")
    p.add_argument("--race-check", action="store_true",
                   help="check stream orderings against memory accesses (happens-before)")
    p.add_argument("--trace", metavar="OUT.json",
                   help="write the device timeline as Chrome Trace Event JSON (Perfetto)")
    p.set_defaults(func=_cmd_devrun)
