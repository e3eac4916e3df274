"""What the target prints goes to the debugger, not the terminal: while a run's worker is alive,
``sys.stdout`` is a proxy that sends the worker thread's writes to the run's buffer and every
other thread's to the stream it replaced. The faces show the buffer as program output."""
from __future__ import annotations

import io
import sys
import threading
from contextlib import contextmanager
from typing import Iterator, TextIO


class _Routed(io.TextIOBase):
    def __init__(self, other: TextIO, thread: int, buffer: list[str]) -> None:
        self._other, self._thread, self._buffer = other, thread, buffer

    def write(self, text: str) -> int:
        if threading.get_ident() == self._thread:
            self._buffer.append(text)
        else:
            self._other.write(text)
        return len(text)

    def flush(self) -> None:
        if threading.get_ident() != self._thread:
            self._other.flush()

    # what terminal libraries ask of stdout is the real stream's answer
    def fileno(self) -> int:
        return self._other.fileno()

    def isatty(self) -> bool:
        return self._other.isatty()

    @property
    def encoding(self) -> str:
        return getattr(self._other, "encoding", "utf-8")


@contextmanager
def captured_output(buffer: list[str]) -> Iterator[None]:
    """Route the calling thread's prints into ``buffer`` for the duration."""
    previous = sys.stdout
    proxy = _Routed(previous, threading.get_ident(), buffer)
    sys.stdout = proxy
    try:
        yield
    finally:
        if sys.stdout is proxy:   # runs end in the order they started; if not, leave it
            sys.stdout = previous
