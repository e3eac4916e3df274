"""What the target prints goes to the debugger, not the terminal: while a run's worker is alive,
``sys.stdout`` is a proxy that sends the worker thread's writes to the run's buffer and every
other thread's to the stream it replaced. The faces show the buffer as program output.

The buffer keeps at most MAX_KEPT characters between two takes (one resume's worth): a program
printing 100 MB would otherwise hold it all, and the app's log after it, in memory. What is
dropped is counted and said."""
from __future__ import annotations

import io
import sys
import threading
from contextlib import contextmanager
from typing import Iterator, TextIO


MAX_KEPT = 1_000_000


class OutputBuffer:
    def __init__(self, cap: int = MAX_KEPT) -> None:
        self.cap = cap
        self._parts: list[str] = []
        self._size = 0
        self._dropped = 0

    def append(self, text: str) -> None:
        room = self.cap - self._size
        if len(text) > room:
            self._dropped += len(text) - max(room, 0)
            text = text[:max(room, 0)]
        if text:
            self._parts.append(text)
            self._size += len(text)

    def take(self) -> str:
        """What was printed since the last take (and how much of it was not kept)."""
        text = "".join(self._parts)
        if self._dropped:
            text += (f"\n[{self._dropped} more characters of program output not kept: the "
                     f"workbench keeps {self.cap} between two stops]\n")
        self._parts, self._size, self._dropped = [], 0, 0
        return text


class _Routed(io.TextIOBase):
    def __init__(self, other: TextIO, thread: int, buffer: OutputBuffer) -> None:
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
def captured_output(buffer: OutputBuffer) -> Iterator[None]:
    """Route the calling thread's prints, to stdout and stderr, into ``buffer`` for the
    duration (a program's stderr on the app's screen would break its layout)."""
    previous = sys.stdout, sys.stderr
    proxies = tuple(_Routed(stream, threading.get_ident(), buffer) for stream in previous)
    sys.stdout, sys.stderr = proxies
    try:
        yield
    finally:
        if (sys.stdout, sys.stderr) == proxies:   # runs end in the order they started
            sys.stdout, sys.stderr = previous
