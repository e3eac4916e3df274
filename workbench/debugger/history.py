"""The ticks of every stepping unit seen so far, per granularity: what `reverse-step` steps back
to. Runs are deterministic, so what one run saw holds for every re-run; a re-run only adds the
units past the furthest tick seen before."""
from __future__ import annotations

from bisect import bisect_left

from workbench.debugger.granularity import EVERY_EVENT, GRANULARITIES
from workbench.debugger.stop_table import StopTable


class History:
    def __init__(self) -> None:
        self.ticks: dict[str, list[int]] = {name: [] for name in GRANULARITIES}

    def watch(self, table: StopTable) -> None:
        """Record units as the run passes them: a list per granularity, fed by each event
        kind that is a unit of it (a NodeVisited is one of pass and of node; units read the
        tracker, which sees the event first)."""
        for name, gran in GRANULARITIES.items():
            for kind, is_unit in gran.units.items():
                table.add_unit_ticks(kind, is_unit, self.ticks[name])

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
