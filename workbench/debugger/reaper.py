"""What going back lets go, freed after the stop is shown.

A step back past a compile's restructuring lets go of what the replaced line made since the
checkpoint: the journal's saved states, the nodes and engine subgraphs made since (the rewind's
``Dropped``), and the checkpoints after the one resumed from. Past Partition at 40k nodes that
was ~100k nodes and graphs with their anchors and descs while it made every node anew, and
freeing them took ~300 of a step's 550 ms. Nothing live reaches them, so they are freed on a
thread of the reaper's own once the step has landed, while the face shows the stop and the user
reads it (docs/architecture.md, one world per run). So is what only the cyclic collector can
free, when a collection of it is due (collector.py: a closed world's cycles, frozen while
alive): it holds the interpreter for its whole scan (1.3 s at 40k nodes), so it waits until the
stop has been shown a while (IDLE_BEFORE_COLLECTING), and the next step, if it comes first,
puts it off to a later landing.
"""
from __future__ import annotations

import threading

from ge_core.graph.journal import Dropped
from workbench.debugger import collector


IDLE_BEFORE_COLLECTING = 0.25   # seconds: the face has drawn the stop; the user reads it
# seconds before freeing starts: started at once, the reaper's thread took the interpreter from
# the step it was given by (the step's end waited a switch interval, 4-8 ms at tick 1M of a
# 40k-node compile) and then from the face drawing the stop
LANDED = 0.05


class Reaper:
    """Frees what it is given on a thread of its own, one batch at a time."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._next = threading.Event()   # set when the next batch comes (or the debugger closes)

    def free_later(self, garbage: list) -> None:
        """Free what ``garbage`` holds (the caller keeps none of it) after the batch before, and
        collect if a collection is due and nothing comes meanwhile."""
        if not garbage and not collector.due():
            return
        self.wait(hurry=True)
        self._next = threading.Event()
        self._thread = threading.Thread(target=_free, args=(garbage, self._next),
                                        name="gewb-reaper", daemon=True)
        self._thread.start()

    def wait(self, hurry: bool = False) -> None:
        """Until what was given is freed, and a collection due made (``hurry``: put off, unless
        overdue)."""
        if self._thread is not None:
            if hurry:
                self._next.set()
            self._thread.join()
            self._thread = None


def _free(garbage: list, hurry: threading.Event) -> None:
    hurry.wait(LANDED)
    for item in garbage:   # every cycle broken before anything goes: nothing is left to the
        if isinstance(item, Dropped):   # cyclic collector
            item.free()
    garbage.clear()
    if collector.due() and (not hurry.wait(IDLE_BEFORE_COLLECTING) or collector.overdue()):
        collector.collect_if_due()
