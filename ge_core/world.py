"""One world per run (DESIGN.md): everything a run creates hangs off one World.

The trace bus, the CANN runtime (devices, streams, models) and GE's process-wide registries are
reached through accessors that answer with the *current* world's instance, so a re-execution
(reverse step, replay, a test) starts from a clean world and cannot see the last run's state.
"""
from __future__ import annotations

from contextlib import ExitStack, contextmanager
from typing import Iterator

from npu_emu.runtime import Runtime, RuntimeConfig, use_runtime
from npu_emu.trace import TraceBus, use_bus


class World:
    def __init__(self, runtime_config: RuntimeConfig | None = None) -> None:
        self.bus = TraceBus()
        self.runtime = Runtime(runtime_config, self.bus)

    @contextmanager
    def entered(self) -> Iterator["World"]:
        """Make this world's bus and runtime the current ones for the duration."""
        with ExitStack() as stack:
            stack.enter_context(use_bus(self.bus))
            stack.enter_context(use_runtime(self.runtime))
            yield self
