"""The debugger engine (no terminal I/O: it takes commands and returns outcomes)."""
from workbench.debugger.step_gate import StepGate, TargetAbandoned

__all__ = ["StepGate", "TargetAbandoned"]
