"""A host program (a `sample_models/devrun/*.py` script written against npu_emu.acl) as a
one-phase program, run as `gewb devrun` runs it (host_runner), on the run's own World."""
from __future__ import annotations

from npu_emu.runtime import current_runtime
from workbench.debugger.targets.host_runner import HostProgramObserver, run_program
from workbench.debugger.targets.program import Phase, RunState


def run_host_program(state: RunState, start: int) -> None:
    runtime = current_runtime()
    observer = HostProgramObserver(state.source)
    runtime.bus.subscribe(observer)
    try:
        state.exit_status, state.error = run_program(state.source, runtime, observer)
    finally:
        runtime.bus.unsubscribe(observer)
    state.faults = observer.faults


HOST_PROGRAM_PHASES = (Phase("program", run_host_program),)
