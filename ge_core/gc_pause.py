"""Pausing CPython's cyclic collector while a big graph is built or rewritten.

A compile makes hundreds of thousands of long-lived IR objects (nodes, anchors, descs) that all
sit in reference cycles. The generational collector rescans every live object at each full
collection, so with it running a compile's time grows faster than the graph (50k nodes: 2.7x
the per-node time of 1k); paused, it stays flat. Garbage made meanwhile is collected when the
collector resumes.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

from npu_emu.base.trace import TraceBus
from npu_emu.world import current_bus


@contextmanager
def gc_paused(bus: TraceBus | None = None) -> Iterator[None]:
    """Pause the collector for the block, unless ``bus`` (default: the current one) is
    observed."""
    if (bus or current_bus()).observed:
        yield
        return
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
