"""`gewb devrun SCRIPT.py`: run a host program written against ``npu_emu.acl`` on a fresh
emulated device, print the SQE trace summary and every fault found (deadlock, race, timeout,
device fault), and exit non-zero when there was one. A fault or a program error is one line,
with the script's file:line where it applies, never a traceback.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from ge_core.ge_options import BY_NAME
from npu_emu.runtime import RuntimeConfig
from npu_emu.soc import DEFAULT_SOC_VERSION
from npu_emu.timeline import Timeline
from npu_emu.trace import TraceBus
from npu_emu.world import World
from workbench.cli.ge_option_flags import add_ge_option
from workbench.cli.user_error import UserError
from workbench.debugger.targets.host_runner import HostProgramObserver, run_program


def run_script(script: Path, race_check: bool, trace: str | None,
               soc_version: str = DEFAULT_SOC_VERSION) -> int:
    if not script.is_file():
        raise UserError(f"no such script: {script}")
    script = script.resolve()
    bus = TraceBus()
    observer = HostProgramObserver(script)
    bus.subscribe(observer)
    timeline = Timeline()
    if trace:
        bus.subscribe(timeline)
    world = World(RuntimeConfig(race_check=race_check, soc_version=soc_version), bus=bus)
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


def _print_summary(observer: HostProgramObserver) -> None:
    total = sum(observer.sqes.values())
    streams = sorted({sid for sid, _ in observer.sqes})
    print(f"devrun: {total} SQEs retired on {len(streams)} streams in "
          f"{observer.end_ns / 1000:.3f} us of device time")
    for sid in streams:
        kinds = ", ".join(f"{name} {n}" for (s, name), n in sorted(observer.sqes.items())
                          if s == sid)
        print(f"  rt_stream {sid}: {kinds}")


def _cmd_devrun(args: argparse.Namespace) -> int:
    return run_script(Path(args.script), args.race_check, args.trace, args.soc_version)


def add_devrun_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("devrun", help="run a host program written against npu_emu.acl on the "
                                      "emulated NPU; report deadlocks, races and timeouts")
    p.add_argument("script", help="a Python host program (pyACL idiom, import npu_emu.acl)")
    p.add_argument("--race-check", action="store_true",
                   help="check stream orderings against memory accesses (happens-before)")
    p.add_argument("--trace", metavar="OUT.json",
                   help="write the device timeline as Chrome Trace Event JSON (Perfetto)")
    add_ge_option(p, BY_NAME["soc-version"])
    p.set_defaults(func=_cmd_devrun)
