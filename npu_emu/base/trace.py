"""The one trace bus (docs/architecture.md invariant 2).

Everything a user can watch is a typed event with a global tick. The engine emits; observers
(breakpoints, the TUI, the recorder, the race detector) subscribe. With no observer an emit is one
truth test and no event object is built, so hot loops can emit freely.

Event classes live next to the code that emits them (the IR's mutation events in ge_core, the
scheduler's SQE events here); they only need to subclass ``TraceEvent``. The bus of the run in
progress is the current World's (npu_emu/world.py: ``current_bus()``).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any, Callable

Observer = Callable[["TraceEvent"], None]


@dataclass(frozen=True, slots=True)
class TraceEvent:
    tick: int

    @property
    def kind(self) -> str:
        return type(self).__name__

    def describe(self) -> str:
        """One line, stable across runs: the basis of trace hashes and transcripts."""
        body = " ".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self)[1:])
        return f"{self.tick} {self.kind} {body}".rstrip()


class TraceBus:
    """Observers are called in subscription order; ticks count the events anyone saw."""

    __slots__ = ("_observers", "_parking", "tick")

    def __init__(self) -> None:
        self._observers: tuple[Observer, ...] = ()
        self._parking: tuple[Observer, ...] = ()
        self.tick = 0

    def subscribe(self, observer: Observer, parks: bool = False) -> None:
        """``parks``: the observer may block the emitting thread (a debugger's step gate)."""
        self._observers = self._observers + (observer,)
        if parks:
            self._parking = self._parking + (observer,)

    def unsubscribe(self, observer: Observer) -> None:
        # ==, not is: a bound method is a new object at each attribute access.
        self._observers = tuple(o for o in self._observers if o != observer)
        self._parking = tuple(o for o in self._parking if o != observer)

    @property
    def observed(self) -> bool:
        return bool(self._observers)

    @property
    def may_park(self) -> bool:
        """Whether an emit may block its thread while others run (see base/gc_pause.py)."""
        return bool(self._parking)

    def emit(self, event_cls: type[TraceEvent], *args: Any) -> None:
        if not self._observers:
            return
        self.tick += 1
        event = event_cls(self.tick, *args)
        for observer in self._observers:
            observer(event)


class TraceRecorder:
    """An observer that keeps every event; its hash fingerprints a run (invariant 1)."""

    def __init__(self) -> None:
        self.events: list[TraceEvent] = []

    # Calling a recorder is calling its list's append: the property hands the bus the bound
    # method without a Python frame, which was a third of what recording cost the scheduler
    # per SQE (scripts/bench_scheduler.py).
    __call__ = property(attrgetter("events.append"))

    def digest(self) -> str:
        h = hashlib.sha256()
        for event in self.events:
            h.update(event.describe().encode())
            h.update(b"\n")
        return h.hexdigest()
