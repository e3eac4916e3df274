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


class _Held(threading.local):
    pauses = 0   # this thread's pauses on a bus that may park it: lifted while it is parked


_held = _Held()
_lock = threading.Lock()
_in_force = 0   # pauses in force, every thread's
_lifted = 0     # of them, those of parked threads


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
            counted = False
        else:
            counted = True
            _in_force += 1
            _held.pauses += liftable
            gc.disable()
    if not counted:
        yield
        return
    try:
        yield
    finally:
        with _lock:
            _in_force -= 1
            _held.pauses -= liftable
            if _in_force == _lifted:   # none left, or only parked threads' lifted ones
                gc.enable()


def lifted() -> AbstractContextManager[None]:
    """For a thread about to park: the collector runs while it waits, if its pauses are all
    that stop it (another thread's pause holds on)."""
    return _lift(_held.pauses) if _held.pauses else nullcontext()


@contextmanager
def _lift(pauses: int) -> Iterator[None]:
    global _lifted
    with _lock:
        _lifted += pauses
        if _in_force == _lifted:
            gc.enable()
    try:
        yield
    finally:
        with _lock:
            _lifted -= pauses
            gc.disable()   # this thread's pauses are in force again
