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


def gc_paused(bus: TraceBus) -> AbstractContextManager[None]:
    """Pause the collector for the block; if an observer of ``bus`` may park this thread, the
    park lifts the pause (see ``lifted``)."""
    return collector_paused(liftable=bus.may_park)


@contextmanager
def collector_paused(liftable: bool = False) -> Iterator[None]:
    """Pause the collector for the block (if it runs: a pause already held is left alone)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    _held.pauses += liftable
    try:
        yield
    finally:
        _held.pauses -= liftable
        gc.enable()


def lifted() -> AbstractContextManager[None]:
    """For a thread about to park: the collector runs while it waits, if its pause stopped it."""
    return _lift() if _held.pauses and not gc.isenabled() else nullcontext()


@contextmanager
def _lift() -> Iterator[None]:
    gc.enable()
    try:
        yield
    finally:
        gc.disable()
