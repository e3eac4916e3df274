"""The gate's stop predicate: per event one dict lookup by the event's class, then only the checks
registered for that kind (docs/architecture.md: a gate testing every breakpoint on every event runs
at a third of the speed). Checks append a StopReason to stop; the tracker's and the history's
checks only watch.

Kinds are class names, so a check can wait for an event whose module is not imported yet (GE's
task distribution); each class is resolved once, on its first event.
"""
from __future__ import annotations

from typing import Callable

from npu_emu.base.trace import Hears, TraceEvent
from workbench.debugger.outcomes import StopReason

Check = Callable[[TraceEvent, list[StopReason]], None]
Predicate = Callable[[TraceEvent], bool]


class StopTable:
    def __init__(self) -> None:
        self._checks: dict[str, list[Check]] = {}
        self.reasons: list[StopReason] = []

    def add(self, kind: str, check: Check) -> None:
        self._checks.setdefault(kind, []).append(check)

    def add_all(self, checks: dict[str, Check]) -> None:
        for kind, check in checks.items():
            self.add(kind, check)

    def hears(self, tick_target: int | None = None) -> Hears | None:
        """The event classes ``predicate(tick_target)`` may stop on or look at (None: all): the
        gate is handed no other. Read once per class, as the predicate reads its checks."""
        if tick_target is not None:
            return None   # every event has a tick
        kinds = frozenset(self._checks)
        return lambda cls: cls.__name__ in kinds

    def predicate(self, tick_target: int | None = None) -> Predicate:
        """Stop when a check gave a reason, or (if given) at the event of ``tick_target``."""
        by_name = {kind: tuple(checks) for kind, checks in self._checks.items()}
        by_class: dict[type, tuple[Check, ...]] = {}
        reasons = self.reasons

        def checks_of(cls: type) -> tuple[Check, ...]:
            checks = by_class[cls] = by_name.get(cls.__name__, ())
            return checks

        def stop(event: TraceEvent) -> bool:
            cls = event.__class__
            try:
                checks = by_class[cls]
            except KeyError:
                checks = checks_of(cls)
            for check in checks:
                check(event, reasons)
            return True if reasons else False   # no call to bool(): this runs at every event

        if tick_target is None:
            return stop  # the common case: nothing added per event

        def stop_at_tick(event: TraceEvent) -> bool:
            return stop(event) or event.tick >= tick_target
        return stop_at_tick
