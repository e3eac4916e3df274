"""A host program (a `sample_models/devrun/*.py` script written against npu_emu.acl) as a
one-phase program, run as `gewb devrun` runs it (host_runner), on the run's own World."""
from __future__ import annotations

from npu_emu.world import current_world
from workbench.debugger.targets.program import Phase, RunState


def run_host_program(state: RunState, start: int) -> None:
    """The run (debugger/run.py) hands every event to ``state.program`` before the step gate
    sees it, so a stop on a failed call already has the call placed and counted."""
    # (here: the runner loads the facade, which opening a target, any target, does not need)
    from workbench.debugger.targets.host_runner import HostProgramObserver, run_program
    observer = state.program = HostProgramObserver(state.source)
    state.exit_status, state.error, state.traceback = run_program(
        state.source, current_world(), observer, trace_lines=True)
    state.faults = observer.faults


HOST_PROGRAM_PHASES = (Phase("program", run_host_program),)
