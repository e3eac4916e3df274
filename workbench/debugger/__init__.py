"""The debugger engine: it takes commands and returns outcomes, and never touches a terminal.

    engine.Debugger      one target, its current run, breakpoints, watches, stepping, going back
    run.Run              one execution in a fresh World, its program on a StepGate worker
    step_gate            the worker parked on trace events (docs/architecture.md invariant 3)
    program_output       what the target prints goes to its run, not the terminal
    stop_table, listen   per event one dict lookup by kind, then the checks for that kind
    tracker, granularity where the target is; the stepping units and their `next` frames
    breakpoints, watches, conditions      what stops it
    stream_names         logical_stream (GE's) and rt_stream (the runtime's): how events read
    history, checkpoint  where reverse stepping goes back to, and where it re-runs from
    collector            the cyclic collector paused while the face waits for a re-run
    targets/             what it runs: a target's program as named phases (targets/__init__.py)
    views/               what faces show of a parked run (views/__init__.py)
"""
from workbench.debugger.step_gate import StepGate, TargetAbandoned

__all__ = ["StepGate", "TargetAbandoned"]
