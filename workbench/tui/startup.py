"""CPython's cyclic collector paused while the app starts, until its first screen is drawn.

The start makes ~150k long-lived objects (modules, classes, widgets, styles) and little garbage;
with the collector running, its full collections rescan them all, about a tenth of the first
screen's CPU. `gewb tui` pauses it before importing the app; once the first screen is drawn,
what the start made is frozen (later full collections, while stepping, skip it: it lives as
long as the app) and the collector runs again. Frozen without a collection first, as CPython's
gc.freeze documentation does before a fork: the start's garbage (~10k objects, measured) stays,
once, where a full collection would cost the first screen ~70 ms.
"""
from __future__ import annotations

import gc

_paused = False


def pause_collector() -> None:
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def first_screen_drawn() -> None:
    """The collector back, if ``pause_collector`` paused it (tests' apps start with it on),
    what the start made frozen."""
    if _paused:
        gc.freeze()
        resume_collector()


def resume_collector() -> None:
    """The collector back as it was (the app never drew: `gewb tui` on a bad target)."""
    global _paused
    if _paused:
        _paused = False
        gc.enable()
