"""CPython's cyclic collector around re-executions (going back in time re-runs the target) and
checkpoint copies.

A re-run rebuilds a compile's graph: hundreds of thousands of objects in reference cycles, all
live. With the collector running, its full passes rescan every live object (the run's graph and
every checkpoint's copy) again and again: at tick 100k of a 5k-node compile they took 80-90% of
a reverse-step. So while the face waits for a re-run to reach its tick the collector is paused
(``re_executing``). Unlike a forward run's pause, which lifts while its worker is parked
(npu_emu/base/gc_pause.py), this one needs no lifting: nothing runs on the face's thread
meanwhile, and it ends as soon as the worker parks.

What the re-run made and the run it lands on keeps (its restored copy, its graphs) is then
frozen, as a copy is (below): resumed, the collector's first young collection scanned all of it
(50-130 ms at tick 100k of a 5k-node compile, a third of a reverse-step), and a later one of the
middle generation the graphs of the runs closed since (0.9 s every sixth step). That is safe
because the run going back replaces is discarded (``dropped``: its graphs' cycles broken, so
reference counting frees them, frozen or not) rather than left to the collector. The objects a
discard frees, counted as the collector's young count falls (it counts allocations less frees
while paused), are taken off the frozen count, up to what that run's re-run froze; what a
discard leaves (a closed world's own cycles: ~130 objects inside a compile, a loaded model's
tasks after it) stays counted, so it is collected with the rest (below).

A checkpoint's copy is another matter: made once, never changed, kept for the session, and as
large as the run's graph. Collected normally, each copy is scanned by a young collection as soon
as it is made (half as long again as the copy took), again when it is promoted, and by every full
collection after: at 20k nodes, steps of the app's that made no copy waited 0.5-1 s on those
scans. So every object alive when a copy is made is frozen (``gc.freeze`` moves them all into
the permanent generation, which no collection scans). What dies after being frozen (nodes a pass
removes, a closed run's graph, a dropped copy) is garbage no collection sees: when the frozen
objects exceed twice what the live copies hold, by more than ``FROZEN_SLACK``, they are thawed
and collected in full once, then frozen again. So that garbage stays below what the copies hold;
once no copy is held (every debugger closed) nothing stays frozen.

The frozen objects are counted here, not by ``gc.get_freeze_count()``: that walks every frozen
object, 60-75 ms a copy once 1-2M are frozen (a few copies of a 20k-node compile), where what a
freeze is about to move (every object the collector tracks: ``gc.get_objects()``) is the live
run and what it made since the last copy. The count is of what this module froze since it last
thawed: a frozen object freed by its last reference going is still counted (so the full
collection comes early, never late: over a 5k-node compile to tick 150k the count ran a quarter
above the frozen objects, and the run made as many full collections as when they were walked),
and what others froze (the app's start, workbench/tui/startup.py) is counted once this module
has thawed and frozen it again.
"""
from __future__ import annotations

import gc
import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Iterator, TypeVar

from npu_emu.base.gc_pause import collector_paused

if TYPE_CHECKING:
    from workbench.debugger.run import Run

T = TypeVar("T")
FROZEN_SLACK = 250_000   # objects frozen besides the copies before a full collection: the app's
                         # start (~150k, workbench/tui/startup.py) and a small run's graph
_held = 0   # objects in the live checkpoint copies, every debugger in the process
_frozen = 0   # objects this module froze since it last thawed (see above)


class Reexecution:
    """The face's pause around re-executions (``re_executing``): the run it lands on, to
    freeze at its end."""

    def __init__(self, owned: bool) -> None:
        self.owned = owned   # this pause stopped the collector: its end freezes
        self.start = gc.get_count()[0]   # young objects as it began
        self.kept: Run | None = None

    def keep(self, run: Run) -> None:
        """``run`` (a Run) is where the face lands: what it holds is frozen as the pause ends.
        Called before the run it replaces is dropped: what the re-runs made is counted now."""
        if self.owned:   # else nothing is frozen at the end: nothing to take off later
            self.kept = run
            run.frozen = max(0, gc.get_count()[0] - self.start)   # allocations less frees


_pause: Reexecution | None = None   # the face's pause under way (nested ones share it)


@contextmanager
def re_executing() -> Iterator[Reexecution]:
    """Around a wait for a re-execution to reach its tick, the collector paused; nested, the
    outer pause's. At the end of the outermost, what the re-runs made and the run ``keep``
    named still holds is frozen (see above), if the collector ran as it began (else another
    pause is in force, the app's or a test's, and nothing is frozen)."""
    global _pause
    if _pause is not None:
        yield _pause
        return
    pause = _pause = Reexecution(owned=gc.isenabled())
    try:
        with collector_paused():
            try:
                yield pause
            finally:
                if pause.kept is not None:
                    _freeze_kept(pause)
    finally:
        _pause = None


def _collect_if_outgrown() -> None:
    """Thaw and collect everything once, if what died frozen outgrew what copies hold."""
    global _frozen
    if _frozen > 2 * _held + FROZEN_SLACK:
        gc.unfreeze()
        gc.collect()
        _frozen = 0


def _freeze_kept(pause: Reexecution) -> None:
    global _frozen
    _collect_if_outgrown()
    # what the freeze moves, by the young count: what the re-runs made (allocations less
    # frees) and what was young as the pause began. Not listed (gc.get_objects: 20 ms a step
    # at tick 100k of a 5k-node compile); what older generations hold besides (the forward
    # run's objects since the last copy) is not counted: live, or freed by the discard
    _frozen += pause.kept.frozen + pause.start
    gc.freeze()


def dropped(run: Run) -> None:
    """Discard ``run`` (a Run the face no longer shows: Run.discard) and take what that freed
    off the frozen count, up to what its re-run froze (see above). Inside ``re_executing``,
    after the re-run, the young count is high enough to show every free."""
    global _frozen
    with collector_paused():   # its worker, unwinding, ends its own pause: not this one
        run.close()   # first, so what the unwinding frees is not counted as the discard's
        before = gc.get_count()[0]
        run.discard()
        freed = max(0, before - gc.get_count()[0])
    _frozen = max(0, _frozen - min(freed, run.frozen))


def frozen_copy(make: Callable[[], T], sized: bool = False) -> tuple[T, int, int]:
    """``make()`` (a checkpoint's copy) with the collector paused, the objects it made, and if
    ``sized`` the bytes they take (sys.getsizeof of each the collector tracks: what the copy
    shares with the run, a node's attribute values, names, is not counted). Every object alive
    is frozen before the copy, as it would be after it anyway, so that the collector's list of
    the objects it tracks holds the copy's alone; then they are frozen too (see above). Give the
    count back to ``thawed`` when the copy is dropped."""
    global _held, _frozen
    with collector_paused():
        _collect_if_outgrown()
        _frozen += len(gc.get_objects())   # what the freeze moves
        gc.freeze()
        before = gc.get_count()[0]   # paused: this counts allocations less frees
        made = make()
        objects = max(0, gc.get_count()[0] - before)
        # the objects tracked now are the copy's (the freeze before emptied the generations):
        # listed only to size them, a list of up to millions of objects
        size = sum(map(sys.getsizeof, gc.get_objects())) if sized else 0
        _frozen += objects
        _held += objects
        gc.freeze()
    return made, objects, size


def thawed(objects: int) -> None:
    """A copy ``frozen_copy`` made is dropped: its objects no longer count as held. With none
    held (every debugger closed), nothing needs to stay frozen: the collector sees it all again,
    so a closed debugger's copies are collected as any garbage is."""
    global _held, _frozen
    _held = max(0, _held - objects)
    if _held == 0:
        gc.unfreeze()
        _frozen = 0
