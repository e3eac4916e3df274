"""One world per run (docs/architecture.md): the one current context that everything a run
creates hangs off.

A World holds the run's trace bus, its CANN runtime (devices, contexts, streams, models) and the
one instance each of the per-process objects the layers above keep (GE's ModelManager and
SingleOpManager: ``World.instance``). Which world is current is one ``contextvars.ContextVar``:
``World.entered()`` sets it for a block, and every accessor of "the process's" object —
``current_bus()``, ``current_runtime()`` (CANN's Runtime::Instance), GE's
``ModelManager.get_instance()`` — answers with the current world's. So a re-execution (reverse
step, replay, a test) starts from a clean world, and two runs on two threads (the debugger's
worker and the main thread) never see each other's.

A context variable does not follow a new thread by itself: whoever starts a thread to do a run's
work (the debugger's step gate, GE's model Run loop, the compile pipeline's pool) runs it in a
copy of the starting thread's context (``contextvars.copy_context().run``). That copy holds the
world, so such a thread must not outlive its run: one that waits to be handed work (the Run
loop) ends when the runtime closes (``Runtime.at_close``).

Outside any entered world — a pyACL host script run directly with python — the first accessor
makes an *implicit* world for the thread, and acl.finalize drops it (``drop_implicit_world``),
so the next acl.init starts afresh.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator, TypeVar

from npu_emu.base.trace import TraceBus
from npu_emu.runtime import Runtime, RuntimeConfig

T = TypeVar("T")


class World:
    def __init__(self, runtime_config: RuntimeConfig | None = None, *,
                 bus: TraceBus | None = None, runtime: Runtime | None = None) -> None:
        """A fresh runtime emitting into ``bus`` (default: a fresh bus), or, given ``runtime``,
        a world around that runtime and its bus (a host program handed a runtime)."""
        self.runtime = runtime or Runtime(runtime_config, bus or TraceBus())
        self.bus = self.runtime.bus
        self.implicit = False
        self._instances: dict[type, Any] = {}

    def discard(self) -> None:
        """Nothing will read this world again (a debugger replaced its run)."""
        self.runtime.release_memory()

    def instance(self, cls: type[T]) -> T:
        """This world's one ``cls``, made with ``cls()`` on first use: the registry behind a
        layer above's process singleton (GE's ModelManager::GetInstance). Keyed by the class
        the caller brings, so npu_emu never names what the layers above keep here."""
        obj = self._instances.get(cls)
        if obj is None:
            obj = self._instances[cls] = cls()
        return obj

    @contextmanager
    def entered(self) -> Iterator[World]:
        """Make this world the current one for the duration (in this thread's context)."""
        token = _current.set(self)
        try:
            yield self
        finally:
            _current.reset(token)


_current: ContextVar[World | None] = ContextVar("npu_emu.world", default=None)


def current_world() -> World:
    """The world entered last in this context, else this context's implicit world."""
    world = _current.get()
    if world is None:
        world = World()
        world.implicit = True
        _current.set(world)
    return world


def current_bus() -> TraceBus:
    """The bus of the run in progress."""
    return current_world().bus


def current_runtime() -> Runtime:
    """The runtime of the run in progress (Runtime::Instance)."""
    return current_world().runtime


def drop_implicit_world() -> None:
    """acl.finalize: if the current world is implicit, forget it, so the next run starts afresh
    (an entered world belongs to whoever entered it and stays)."""
    world = _current.get()
    if world is not None and world.implicit:
        _current.set(None)
