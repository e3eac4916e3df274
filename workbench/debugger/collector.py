"""CPython's cyclic collector around re-executions (going back in time re-runs the target).

A re-run rebuilds a compile's graph: hundreds of thousands of objects in reference cycles, all
live. With the collector running, its full passes rescan every live object (the run's graph and
every checkpoint's copy) again and again: at tick 100k of a 5k-node compile they took 80-90% of
a reverse-step. So while the face waits for a re-run to reach its tick the collector is paused.
Unlike a forward run's pause, which lifts while its worker is parked (npu_emu/base/gc_pause.py),
this one needs no lifting: nothing runs on the face's thread meanwhile, and it ends as soon as
the worker parks.

Freezing what a re-run made (``gc.freeze``), so the collector never scans it again, was tried
and measured no faster: what closed runs leave is frozen too, and the full collections needed to
keep memory bounded cost as much as the scans saved.
"""
from __future__ import annotations

from contextlib import AbstractContextManager

from npu_emu.base.gc_pause import collector_paused


def re_executing() -> AbstractContextManager[None]:
    """Around a wait for a re-execution to reach its tick."""
    return collector_paused()
