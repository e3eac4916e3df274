"""The gate's stop predicate: per event one dict lookup by the event's class, then only the checks
registered for that kind (docs/architecture.md: a gate testing every breakpoint on every event runs
at a third of the speed). Checks append a StopReason to stop; the tracker's only watch.

Units are data, not checks: the history's lists of unit ticks and a step's count of units, each
under the unit test that picks its events of a kind (granularity.py). Each test runs once per
event, however many lists and counts hang on it.

A kind's first check may come with its form on the event's fields that also keeps the kind's
units (``add``): the gate is then handed that kind's tick and fields, and the event is built only
to stop on. Stepping a pass of a big graph hears mostly node visits (85k a press at 20k nodes),
which is that case: the tracker's check of a visit is all there is, and the history and the step
only count units; one function a visit, where a call per check and per unit test was half of
what the gate cost. The kind's other checks may each say on the fields whether they could act
(``wants``: a breakpoint's key, the node or the pass it is on), and the event is built for them
only then: a breakpoint on a node that never comes had every visit built, gated and checked
(ResNet-50 end to end under ten such breakpoints: 6.4k visits of 6.9k events gated).

Kinds are class names, so a check can wait for an event whose module is not imported yet (GE's
task distribution); each class is resolved once, on its first event.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from npu_emu.base.trace import Hears, TraceEvent
from workbench.debugger.granularity import UnitTest, always
from workbench.debugger.outcomes import StopReason

if TYPE_CHECKING:
    from workbench.debugger.tracker import Tracker

Check = Callable[[TraceEvent, list[StopReason]], None]
Predicate = Callable[[TraceEvent], bool]


class UnitCount:
    """A step's count: stop with ``reason`` at the ``count``-th unit."""

    __slots__ = ("count", "reason", "seen")

    def __init__(self, count: int, reason: StopReason) -> None:
        self.count, self.reason, self.seen = count, reason, 0


# per kind: (unit test or None for every event, the tick lists and the counts it feeds)
Units = tuple[tuple[UnitTest | None, tuple[list[int], ...], tuple[UnitCount, ...]], ...]
# A check made on the tick and fields of an event (in the order its class declares them) that
# also keeps the kind's units, from them and the reasons: the stop predicate of the kind, or
# None if it cannot keep those units.
FieldsStops = Callable[[Units, list[StopReason]], "Callable[..., bool] | None"]
# A check's test on an event's fields (after its tick), made for the event's class: whether the
# check may act on the event; None if it cannot tell from them.
Wants = Callable[[type], "Callable[..., bool] | None"]


def note_unit(tick: int, lists: tuple[list[int], ...], counts: tuple[UnitCount, ...],
              reasons: list[StopReason]) -> None:
    """A unit at ``tick``: onto each list, if past its last (a re-run covers ticks seen
    before), and counted by each count."""
    for ticks in lists:
        if not ticks or tick > ticks[-1]:
            ticks.append(tick)
    for count in counts:
        count.seen += 1
        if count.seen == count.count:
            reasons.append(count.reason)


class StopTable:
    def __init__(self, tracker: Tracker) -> None:
        self.tracker = tracker   # what unit tests read
        self._checks: dict[str, list[Check]] = {}
        self._on_fields: dict[str, list[FieldsStops | None]] = {}
        self._wants: dict[str, list[Wants | None]] = {}
        self._units: dict[str, dict[UnitTest | None, tuple[list, list]]] = {}
        self.reasons: list[StopReason] = []

    def add(self, kind: str, check: Check, on_fields: FieldsStops | None = None,
            wants: Wants | None = None) -> None:
        """``on_fields``: the same check on the event's tick and fields, keeping the units
        too; ``wants``: its test of whether it may act on an event, on the fields (see
        above)."""
        self._checks.setdefault(kind, []).append(check)
        self._on_fields.setdefault(kind, []).append(on_fields)
        self._wants.setdefault(kind, []).append(wants)

    def add_all(self, checks: dict[str, Check],
                on_fields: dict[str, FieldsStops] | None = None) -> None:
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
        self._wants.setdefault(kind, [])
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

        def hears(cls: type) -> bool | Callable[..., bool]:
            kind = cls.__name__
            on_fields = self._on_fields.get(kind, ())
            if on_fields and on_fields[0] is not None \
                    and (rest := self._wanting(cls)) is not None:
                stops = on_fields[0](self._units_of(kind), self.reasons)
                if stops is not None:
                    return _also(stops, cls, rest, self.reasons) if rest else stops
            return kind in kinds
        return hears

    def _wanting(self, cls: type) -> tuple[tuple[Callable[..., bool], Check], ...] | None:
        """The kind's checks after its first, each with its test on ``cls``'s fields; None if
        one has none."""
        kind = cls.__name__
        rest = []
        for check, wants in zip(self._checks[kind][1:], self._wants[kind][1:]):
            test = wants(cls) if wants is not None else None
            if test is None:
                return None
            rest.append((test, check))
        return tuple(rest)

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


def _also(stops: Callable[..., bool], cls: type,
          rest: tuple[tuple[Callable[..., bool], Check], ...],
          reasons: list[StopReason]) -> Callable[..., bool]:
    """``stops`` (the first check's form on the fields, keeping the units), then each of
    ``rest``'s checks on the event, built only if its test on the fields says it may act. Their
    reasons go before the units', as the predicate gives them (the checks', then the units')."""
    def stops_too(tick: int, *fields: object) -> bool:
        before = len(reasons)
        stops(tick, *fields)
        units = len(reasons)
        for test, check in rest:
            if test(*fields):
                check(cls(tick, *fields), reasons)
        if before < units < len(reasons):
            reasons[before:] = reasons[units:] + reasons[before:units]
        return True if reasons else False
    return stops_too


def _noting(units: Units, tracker: Tracker, reasons: list[StopReason]
            ) -> Callable[[TraceEvent, int], None]:
    """The units' bookkeeping for an event."""
    def note(e: TraceEvent, tick: int) -> None:
        for test, lists, counts in units:
            if test is None or test(e, tracker):
                note_unit(tick, lists, counts, reasons)
    return note
