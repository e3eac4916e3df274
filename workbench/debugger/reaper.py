"""What going back lets go, freed after the stop is shown.

A step back past a compile's restructuring lets go of what the replaced line made since the
checkpoint: the journal's saved states, the nodes and engine subgraphs made since (the rewind's
``Dropped``), and the checkpoints after the one resumed from. Past Partition at 40k nodes that
is ~100k nodes and graphs with their anchors and descs, and freeing them took ~300 of a step's
550 ms. Nothing live reaches them, so they are freed on a thread of the reaper's own once the
step has landed, while the face shows the stop and the user reads it (docs/architecture.md,
one world per run).
"""
from __future__ import annotations

import threading

from ge_core.graph.journal import Dropped


class Reaper:
    """Frees what it is given on a thread of its own, one batch at a time."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None

    def free_later(self, garbage: list) -> None:
        """Free what ``garbage`` holds (the caller keeps none of it) after the batch before."""
        if not garbage:
            return
        self.wait()
        self._thread = threading.Thread(target=_free, args=(garbage,), name="gewb-reaper",
                                        daemon=True)
        self._thread.start()

    def wait(self) -> None:
        """Until what was given is freed."""
        if self._thread is not None:
            self._thread.join()
            self._thread = None


def _free(garbage: list) -> None:
    for item in garbage:   # every cycle broken before anything goes: nothing is left to the
        if isinstance(item, Dropped):   # cyclic collector
            item.free()
    garbage.clear()
