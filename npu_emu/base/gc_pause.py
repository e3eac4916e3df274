"""Pausing CPython's cyclic collector while a long loop makes long-lived objects.

A compile makes hundreds of thousands of long-lived IR objects (nodes, anchors, descs) that all
sit in reference cycles, and a recorded execution a trace event or two per SQE. The generational
collector rescans every live object at each full collection, so with it running a compile's time
grows faster than the graph (50k nodes: 2.7x the per-node time of 1k) and a recording task
scheduler spends about a fifth of its time collecting; paused, both stay flat. Garbage made
meanwhile is collected when the collector resumes.

The collector is process-wide, and a debugger's face runs on while its worker is parked at the
step gate (``TraceBus.subscribe(parks=True)``): a thread that pauses the collector on a bus whose
observers may park lifts its pause for as long as it is parked (``lifted``), so the face never
runs without the collector, and a stepped compile is as quick between stops as a free one.

So pauses are counted process-wide: the collector runs again when the last pause in force
ends, or while every one in force is a parked thread's lifted one. A pause that ends (a worker
unwinding as the face closes its run) never resumes the collector under another thread's pause:
the face pauses it while it re-executes, and closing the run it replaces then would have let
a young collection scan that run's last stretch, about to be freed (debugger/collector.py). A
pause begun while the collector is off and no pause is in force (someone turned it off: a test's
``gc.disable()``) does nothing, and leaves it off.
"""
from __future__ import annotations

import gc
import threading
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Iterator

from npu_emu.base.trace import TraceBus


class _Pauses:
    """One thread's pauses in force: how many, how many a park may lift, how many it has."""
    __slots__ = ("count", "liftable", "lifted")

    def __init__(self) -> None:
        self.count = 0
        self.liftable = 0   # on a bus that may park the thread: lifted while it is parked
        self.lifted = 0


_lock = threading.Lock()
_in_force = 0   # pauses in force, every thread's
_lifted = 0     # of them, those of parked threads
# thread ident -> its pauses, while it has any and is not given up on (abandon drops it): a
# thread's own _Pauses no longer here has been abandoned, and its late ends change nothing
_threads: dict[int, _Pauses] = {}


def _counted(mine: _Pauses) -> bool:
    """Whether the calling thread's ``mine`` still counts (not abandoned)."""
    return _threads.get(threading.get_ident()) is mine


def gc_paused(bus: TraceBus) -> AbstractContextManager[None]:
    """Pause the collector for the block; if an observer of ``bus`` may park this thread, the
    park lifts the pause (see ``lifted``)."""
    return collector_paused(liftable=bus.may_park)


@contextmanager
def collector_paused(liftable: bool = False) -> Iterator[None]:
    """Pause the collector for the block (see above)."""
    global _in_force
    with _lock:
        if not _in_force and not gc.isenabled():   # off, and not by a pause: left alone
            mine = None
        else:
            mine = _threads.get(threading.get_ident())
            if mine is None:
                mine = _threads[threading.get_ident()] = _Pauses()
            mine.count += 1
            mine.liftable += liftable
            _in_force += 1
            gc.disable()
    if mine is None:
        yield
        return
    try:
        yield
    finally:
        with _lock:
            if _counted(mine):   # an abandoned thread's pauses were taken off already
                mine.count -= 1
                mine.liftable -= liftable
                if not mine.count:
                    del _threads[threading.get_ident()]
                _in_force -= 1
                _resume_if_free()


def _resume_if_free() -> None:
    if _in_force == _lifted:   # none left, or only parked threads' lifted ones
        gc.enable()


def abandon(thread: threading.Thread) -> None:
    """Stop counting the pauses of ``thread``, given up on while it may hold some (a target
    stuck in a sleep or a C loop that its debugger stopped waiting for): else the collector
    would stay off for the rest of the process. Its pauses' late ends change nothing."""
    global _in_force, _lifted
    with _lock:
        mine = _threads.pop(thread.ident, None)
        if mine is None:
            return
        _in_force -= mine.count
        _lifted -= mine.lifted
        _resume_if_free()


def lifted() -> AbstractContextManager[None]:
    """For a thread about to park: the collector runs while it waits, if its pauses are all
    that stop it (another thread's pause holds on)."""
    mine = _threads.get(threading.get_ident())
    return _lift(mine) if mine is not None and mine.liftable else nullcontext()


@contextmanager
def _lift(mine: _Pauses) -> Iterator[None]:
    global _lifted
    with _lock:
        pauses = mine.liftable if _counted(mine) else 0   # (abandoned since lifted() looked)
        mine.lifted += pauses
        _lifted += pauses
        _resume_if_free()
    try:
        yield
    finally:
        with _lock:
            if _counted(mine):
                mine.lifted -= pauses
                _lifted -= pauses
                gc.disable()   # this thread's pauses are in force again
