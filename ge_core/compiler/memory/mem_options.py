"""MemoryOptions: the switches of memory assignment (GE's options and env vars, plus lessons)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MemoryOptions:
    disable_reuse: bool = False       # ge.exec.disableReuseMemory=1: every tensor its own block
    continuous_concat: bool = False   # lesson: Concat asks for its inputs side by side
                                      # (continuous_input), so they never need a copy
    assigners: tuple[str, ...] | None = None  # which assigners the hybrid runs; None: all
                                             # (the quadratic ones on small graphs only)
    no_reuse_ops: tuple[str, ...] = ()  # GE's OP_NO_REUSE_MEM: op names or types never reused
