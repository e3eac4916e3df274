"""The ticks of every stepping unit seen so far, per granularity: what `reverse-step` steps back
to. Runs are deterministic, so what one run saw holds for every re-run; a re-run only adds the
units past the furthest tick seen before."""
from __future__ import annotations

from bisect import bisect_left

from npu_emu.base.trace import TraceEvent
from workbench.debugger.granularity import EVERY_EVENT, GRANULARITIES, UnitTest, always
from workbench.debugger.stop_table import StopTable
from workbench.debugger.tracker import Tracker


class History:
    def __init__(self) -> None:
        self.ticks: dict[str, list[int]] = {name: [] for name in GRANULARITIES}

    def watch(self, table: StopTable, tracker: Tracker) -> None:
        """Record units as the run passes them (after the tracker: units read its state). One
        check per kind for every granularity it is a unit of (a NodeVisited is one of pass and
        of node): a stepped pass hears a NodeVisited per node per node pass."""
        by_kind: dict[str, list[tuple[list[int], UnitTest | None]]] = {}
        for name, gran in GRANULARITIES.items():
            for kind, is_unit in gran.units.items():   # None: every event of the kind is one
                by_kind.setdefault(kind, []).append(
                    (self.ticks[name], None if is_unit is always else is_unit))
        for kind, units in by_kind.items():
            def record(e: TraceEvent, reasons: list, units=tuple(units)) -> None:
                tick = e.tick
                for ticks, is_unit in units:
                    if (not ticks or tick > ticks[-1]) and (is_unit is None
                                                            or is_unit(e, tracker)):
                        ticks.append(tick)
            table.add(kind, record)

    def latest(self, granularities: set[str], tick: int) -> int | None:
        """The last tick before ``tick`` that is a unit of any of ``granularities``."""
        found = [ticks[i - 1] for ticks in (self.ticks[g] for g in granularities)
                 if (i := bisect_left(ticks, tick))]
        return max(found, default=None)

    def before(self, granularity: str, tick: int, count: int = 1) -> int | None:
        """The tick of the ``count``-th unit before ``tick``, or None if there are fewer."""
        if granularity == EVERY_EVENT:
            return tick - count if tick - count >= 1 else None
        ticks = self.ticks[granularity]
        i = bisect_left(ticks, tick) - count
        return ticks[i] if i >= 0 else None
