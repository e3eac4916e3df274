"""Pausing CPython's cyclic collector while a long loop makes long-lived objects.

A compile makes hundreds of thousands of long-lived IR objects (nodes, anchors, descs) that all
sit in reference cycles, and a recorded execution a trace event or two per SQE. The generational
collector rescans every live object at each full collection, so with it running a compile's time
grows faster than the graph (50k nodes: 2.7x the per-node time of 1k) and a recording task
scheduler spends about a fifth of its time collecting; paused, both stay flat. Garbage made
meanwhile is collected when the collector resumes.

The collector is process-wide, so it is never paused while an observer of the bus may park the
emitting thread (a debugger's step gate, ``TraceBus.subscribe(parks=True)``): the face's thread
runs on meanwhile and must not run without it.
"""
from __future__ import annotations

import gc
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Iterator

from npu_emu.base.trace import TraceBus


def gc_paused(bus: TraceBus) -> AbstractContextManager[None]:
    """Pause the collector for the block, unless an observer of ``bus`` may park."""
    return nullcontext() if bus.may_park else collector_paused()


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the collector for a block that never parks (it emits nothing)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
