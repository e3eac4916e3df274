"""What the debugger runs, and the contract between a target and the engine.

    target          a target as the user names it (an .onnx model, an .om file, a .py host
                    program, light:NAME) and its settings; open_target
    program         a target's program as named phases over one RunState; the phase events
    onnx_program    GE's sequence for a model: parse > compile > build > load > execute
    host_program    a host program as one phase
    host_runner     a host program run as __main__ on a runtime, faults placed at file:line
                    (shared with `gewb devrun`)
    settings        what besides the file decides a run (`set NAME VALUE`)
"""
from workbench.debugger.targets.target import Target, TargetError, open_target

__all__ = ["Target", "TargetError", "open_target"]
