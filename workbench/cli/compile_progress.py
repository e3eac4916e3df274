"""What a long compile is doing: after about a second, the stage and pass under way on stderr.

Only on a terminal, on one line rewritten in place and erased at the end, so a piped or
captured run (and every test's stdout) stays as it was. It listens to the pass and stage events
on the graph's trace bus, like any other observer; a graph name comes from the model, so only
its printable characters are shown.
"""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Iterator, TextIO

from ge_core.passes.events import PassBegin
from ge_core.stage_events import StageBegin
from npu_emu.trace import TraceBus, TraceEvent

QUIET_FOR = 1.0     # seconds before the first line: a short compile shows nothing
REDRAW_EVERY = 0.1  # seconds between two redraws


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else "?" for c in text)


class CompileProgress:
    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.start = time.monotonic()
        self.next_draw = self.start + QUIET_FOR
        self.stage = ""
        self.shown = False

    def __call__(self, event: TraceEvent) -> None:
        if isinstance(event, StageBegin):
            self.stage = event.stage
            self._draw("")
        elif isinstance(event, PassBegin):
            self._draw(event.pass_name)

    def _draw(self, pass_name: str) -> None:
        now = time.monotonic()
        if now < self.next_draw:
            return
        self.next_draw = now + REDRAW_EVERY
        where = " > ".join(filter(None, (self.stage, pass_name)))
        self.out.write(f"\r\x1b[Kcompiling ({now - self.start:.0f} s): {_printable(where)}")
        self.out.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.out.write("\r\x1b[K")
            self.out.flush()


@contextmanager
def compile_progress(bus: TraceBus, out: TextIO | None = None) -> Iterator[None]:
    """Show progress on ``out`` (stderr) while the block runs, if it is a terminal."""
    out = out or sys.stderr
    if not out.isatty():
        yield
        return
    progress = CompileProgress(out)
    bus.subscribe(progress)
    try:
        yield
    finally:
        bus.unsubscribe(progress)
        progress.clear()
