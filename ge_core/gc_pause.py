"""Pausing CPython's cyclic collector while a big graph is built or rewritten (the rule and its
reasons: npu_emu/base/gc_pause.py), on the current world's bus unless told another."""
from __future__ import annotations

from contextlib import AbstractContextManager

from npu_emu.base import gc_pause
from npu_emu.base.trace import TraceBus
from npu_emu.world import current_bus


def gc_paused(bus: TraceBus | None = None) -> AbstractContextManager[None]:
    return gc_pause.gc_paused(bus or current_bus())
