"""`gewb devrun SCRIPT.py`: run a host program written against ``npu_emu.acl`` on a fresh
emulated device, print the SQE trace summary and every fault found (deadlock, race, timeout,
device fault), and exit non-zero when there was one. A fault is one line with the script's
file:line; a facade call that returned an error code is a warning where it happened, and
counted at the end; a Python error is the program's own traceback (its frames only).
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ge_core.ge_options import BY_NAME
from npu_emu.base.counted import counted
from npu_emu.base.trace import TraceBus
from npu_emu.driver.soc import DEFAULT_SOC_VERSION
from npu_emu.runtime import RuntimeConfig
from npu_emu.timeline import Timeline
from npu_emu.world import World
from workbench.cli.device_run_flags import add_device_run_flags
from workbench.cli.ge_option_flags import add_ge_option
from workbench.cli.user_error import UserError

if TYPE_CHECKING:
    from workbench.debugger.targets.host_runner import HostProgramObserver


def run_script(script: Path, race_check: bool, trace: str | None,
               soc_version: str = DEFAULT_SOC_VERSION) -> int:
    # (here, not above: every gewb command sets up this one's parser, and the facade's events
    # and the runner load the whole facade, which only a host program needs)
    from npu_emu.acl.call_events import AclCallFailed
    from workbench.debugger.targets.host_runner import HostProgramObserver, run_program
    if not script.is_file():
        raise UserError(f"no such script: {script}")
    script = script.resolve()
    bus = TraceBus()
    observer = HostProgramObserver(script)
    bus.subscribe(observer)

    def warn(event: object) -> None:   # as it happens, between the program's own prints
        if isinstance(event, AclCallFailed):
            print(f"warning: {observer.failed_calls[-1][0]}", flush=True)
    bus.subscribe(warn)
    timeline = Timeline()
    if trace:
        bus.subscribe(timeline)
    world = World(RuntimeConfig(race_check=race_check, soc_version=soc_version), bus=bus)
    status, error, traceback = run_program(script, world, observer)
    _print_summary(observer, world.runtime.stream_name)
    if trace:
        timeline.write(trace)
        print(f"timeline written to {trace}")
    for line in observer.faults:
        print(f"fault: {line}")
    for line in traceback:
        print(line)
    if error:
        print(f"error: {error}")
    failed = observer.failed_summary()
    if failed:
        print(f"warning: {failed}")
    hint = observer.order_hint() if not race_check else ""
    if hint:
        print(hint)
    return status or (1 if (observer.faults or error or failed) else 0)


def _print_summary(observer: HostProgramObserver, name: Callable[[int], str]) -> None:
    total = sum(observer.sqes.values())
    streams = sorted({sid for sid, _ in observer.sqes})
    print(f"devrun: {counted(total, 'SQE')} retired on {counted(len(streams), 'stream')} in "
          f"{observer.end_ns / 1000:.3f} us of device time")
    for sid in streams:
        kinds = ", ".join(f"{name} {n}" for (s, name), n in sorted(observer.sqes.items())
                          if s == sid)
        print(f"  stream {name(sid)}: {kinds}")


def _cmd_devrun(args: argparse.Namespace) -> int:
    return run_script(Path(args.script), args.race_check, args.trace, args.soc_version)


def add_devrun_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("devrun", help="run a pyACL host program on the emulated NPU; report "
                                      "deadlocks, races and timeouts")
    p.add_argument("script", help="a Python host program (its `import acl` is the emulator's "
                                  "pyACL, npu_emu.acl)")
    add_device_run_flags(p)
    add_ge_option(p, BY_NAME["soc-version"])
    p.set_defaults(func=_cmd_devrun)
