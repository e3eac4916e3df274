"""The debugger engine: it takes commands and returns outcomes, and never touches a terminal.

    engine.Debugger      one target, its current run, breakpoints, watches, stepping, going back
    run.Run              one execution in a fresh World, its program on a StepGate worker
    step_gate            the worker parked on trace events (DESIGN.md invariant 3)
    program, targets     a target's program as named phases (onnx_program, host_program)
    stop_table, listen   per event one dict lookup by kind, then the checks for that kind
    tracker, granularity where the target is; the stepping units and their `next` frames
    breakpoints, watches, conditions      what stops it
    history, checkpoint  where reverse stepping goes back to, and where it re-runs from
    graph_views, device_views, timeline_views, tensor_text, summary    what faces show
"""
from workbench.debugger.step_gate import StepGate, TargetAbandoned

__all__ = ["StepGate", "TargetAbandoned"]
