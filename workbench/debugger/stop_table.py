"""The gate's stop predicate: per event one dict lookup by the event's class, then only the checks
registered for that kind (docs/architecture.md: a gate testing every breakpoint on every event runs
at a third of the speed). Checks append a StopReason to stop; the tracker's only watch.

Units are data, not checks: the history's lists of unit ticks and a step's count of units, each
under the unit test that picks its events of a kind (granularity.py). Each test runs once per
event, however many lists and counts hang on it.

A check may come with its twin on the event's fields (``add``): when every check of a kind has
one and every unit test of it reads only the tracker (TRACKER_ONLY), the gate is handed that
kind's tick and fields, and the event is built only to stop on. Stepping a pass of a big graph
hears mostly node visits (85k a press at 20k nodes), which is that case: the tracker's check of a
visit has a twin, and the history and the step only count units.

Kinds are class names, so a check can wait for an event whose module is not imported yet (GE's
task distribution); each class is resolved once, on its first event.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from npu_emu.base.trace import Hears, TraceEvent
from workbench.debugger.granularity import TRACKER_ONLY, UnitTest, always
from workbench.debugger.outcomes import StopReason

if TYPE_CHECKING:
    from workbench.debugger.tracker import Tracker

Check = Callable[[TraceEvent, list[StopReason]], None]
# A check on the reasons, an event's tick and its fields (in the order its class declares them).
FieldsCheck = Callable[..., None]
Predicate = Callable[[TraceEvent], bool]


class UnitCount:
    """A step's count: stop with ``reason`` at the ``count``-th unit."""

    __slots__ = ("count", "reason", "seen")

    def __init__(self, count: int, reason: StopReason) -> None:
        self.count, self.reason, self.seen = count, reason, 0


# per kind: (unit test or None for every event, the tick lists and the counts it feeds)
Units = tuple[tuple[UnitTest | None, tuple[list[int], ...], tuple[UnitCount, ...]], ...]


class StopTable:
    def __init__(self, tracker: Tracker) -> None:
        self.tracker = tracker   # what unit tests read
        self._checks: dict[str, list[Check]] = {}
        self._on_fields: dict[str, list[FieldsCheck | None]] = {}
        self._units: dict[str, dict[UnitTest | None, tuple[list, list]]] = {}
        self.reasons: list[StopReason] = []

    def add(self, kind: str, check: Check, on_fields: FieldsCheck | None = None) -> None:
        """``on_fields``: the same check on the event's tick and fields (see above)."""
        self._checks.setdefault(kind, []).append(check)
        self._on_fields.setdefault(kind, []).append(on_fields)

    def add_all(self, checks: dict[str, Check],
                on_fields: dict[str, FieldsCheck] | None = None) -> None:
        for kind, check in checks.items():
            self.add(kind, check, (on_fields or {}).get(kind))

    def add_unit_ticks(self, kind: str, test: UnitTest | None, ticks: list[int]) -> None:
        """Append the tick of each event of ``kind`` that ``test`` calls a unit (None: every
        one) to ``ticks``, if past its last (a history's; a re-run covers ticks seen before)."""
        self._unit(kind, test)[0].append(ticks)

    def add_unit_count(self, kind: str, test: UnitTest | None, count: UnitCount) -> None:
        """Count the events of ``kind`` that ``test`` calls a unit toward ``count``."""
        self._unit(kind, test)[1].append(count)

    def _unit(self, kind: str, test: UnitTest | None) -> tuple[list, list]:
        test = None if test is always else test   # no call per event for these
        self._checks.setdefault(kind, [])
        self._on_fields.setdefault(kind, [])
        return self._units.setdefault(kind, {}).setdefault(test, ([], []))

    def _units_of(self, kind: str) -> Units:
        return tuple((test, tuple(lists), tuple(counts))
                     for test, (lists, counts) in self._units.get(kind, {}).items())

    def hears(self, tick_target: int | None = None) -> Hears | None:
        """The event classes ``predicate(tick_target)`` may stop on or look at (None: all): the
        gate is handed no other. For a kind the predicate can test on the tick and fields (see
        above), that test instead of True. Read once per class, as the predicate reads its
        checks."""
        if tick_target is not None:
            return None   # every event has a tick
        kinds = frozenset(self._checks)
        on_fields = {kind: tuple(checks) for kind, checks in self._on_fields.items()
                     if None not in checks and all(test is None or test in TRACKER_ONLY
                                                   for test in self._units.get(kind, ()))}

        def hears(cls: type) -> bool | Callable[..., bool]:
            checks = on_fields.get(cls.__name__)
            if checks is None:
                return cls.__name__ in kinds
            return _stops(checks, _noting(self._units_of(cls.__name__), self.tracker,
                                          self.reasons), self.reasons)
        return hears

    def predicate(self, tick_target: int | None = None) -> Predicate:
        """Stop when a check gave a reason, or (if given) at the event of ``tick_target``."""
        by_name = {kind: (tuple(checks), _noting(self._units_of(kind), self.tracker,
                                                  self.reasons) if kind in self._units else None)
                   for kind, checks in self._checks.items()}
        by_class: dict[type, tuple] = {}
        reasons = self.reasons

        def checks_of(cls: type) -> tuple:
            checks = by_class[cls] = by_name.get(cls.__name__, ((), None))
            return checks

        def stop(event: TraceEvent) -> bool:
            cls = event.__class__
            try:
                checks, note = by_class[cls]
            except KeyError:
                checks, note = checks_of(cls)
            for check in checks:
                check(event, reasons)
            if note is not None:
                note(event, event.tick)
            return True if reasons else False   # no call to bool(): this runs at every event

        if tick_target is None:
            return stop  # the common case: nothing added per event

        def stop_at_tick(event: TraceEvent) -> bool:
            return stop(event) or event.tick >= tick_target
        return stop_at_tick


def _noting(units: Units, tracker: Tracker, reasons: list[StopReason]
            ) -> Callable[[TraceEvent | None, int], None]:
    """The units' bookkeeping for an event (None on fields: its tests read only the tracker)."""
    def note(e: TraceEvent | None, tick: int) -> None:
        for test, lists, counts in units:
            if test is None or test(e, tracker):
                for ticks in lists:
                    if not ticks or tick > ticks[-1]:
                        ticks.append(tick)
                for count in counts:
                    count.seen += 1
                    if count.seen == count.count:
                        reasons.append(count.reason)
    return note


def _stops(checks: tuple[FieldsCheck, ...], note: Callable[[None, int], None],
           reasons: list[StopReason]) -> Callable[..., bool]:
    def stops(tick: int, *fields: object) -> bool:
        for check in checks:
            check(reasons, tick, *fields)
        note(None, tick)
        return True if reasons else False
    return stops
