"""One world per run (DESIGN.md): everything a run creates hangs off one World.

The trace bus, the CANN runtime (devices, streams, models) and GE's process-wide registries are
reached through accessors that answer with the *current* world's instance, so a re-execution
(reverse step, replay, a test) starts from a clean world and cannot see the last run's state.

The current world is the one whose runtime is current: the world entered last, or, for a host
program run with only a runtime made current (``gewb devrun``, a pyACL script run directly), a
world adopted around that runtime on first use, so GE's ModelManager exists for it too.
"""
from __future__ import annotations

from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Iterator

from npu_emu.runtime import Runtime, RuntimeConfig, current_runtime, use_runtime
from npu_emu.trace import TraceBus, use_bus

if TYPE_CHECKING:
    from ge_core.runtime.single_op.single_op_cache import SingleOpManager
    from ge_core.runtime.v1.model_manager import ModelManager


class World:
    def __init__(self, runtime_config: RuntimeConfig | None = None,
                 runtime: Runtime | None = None) -> None:
        """``runtime``: adopt an existing runtime (and its bus) instead of making one."""
        if runtime is None:
            runtime = Runtime(runtime_config, TraceBus())
        self.bus = runtime.bus
        self.runtime = runtime
        self._model_manager: ModelManager | None = None
        self._single_op_manager: SingleOpManager | None = None

    @property
    def model_manager(self) -> "ModelManager":
        """GE's ModelManager of this world, made on first use (ModelManager::GetInstance)."""
        if self._model_manager is None:
            from ge_core.runtime.v1.model_manager import ModelManager
            self._model_manager = ModelManager(self)
        return self._model_manager

    @property
    def single_op_manager(self) -> "SingleOpManager":
        """GE's SingleOpManager of this world (its single-op caches), made on first use."""
        if self._single_op_manager is None:
            from ge_core.runtime.single_op.single_op_cache import SingleOpManager
            self._single_op_manager = SingleOpManager()
        return self._single_op_manager

    @contextmanager
    def entered(self) -> Iterator["World"]:
        """Make this world's bus and runtime the current ones for the duration."""
        global _entered
        with ExitStack() as stack:
            stack.enter_context(use_bus(self.bus))
            stack.enter_context(use_runtime(self.runtime))
            previous, _entered = _entered, self
            stack.callback(_restore, previous)
            yield self


_entered: World | None = None
_adopted: World | None = None


def _restore(previous: World | None) -> None:
    global _entered
    _entered = previous


def current_world() -> World:
    """The world of the current runtime (see the module docstring)."""
    global _adopted
    runtime = current_runtime()
    if _entered is not None and _entered.runtime is runtime:
        return _entered
    if _adopted is None or _adopted.runtime is not runtime:
        _adopted = World(runtime=runtime)
    return _adopted
