"""Nothing a model, script or program says reaches the terminal raw. A node name, a doc string,
a `say` line or a program's print may hold control characters: ESC sequences that clear the
screen (``\\x1b[2J``), set the window title (OSC 0/2) or write the clipboard (OSC 52). Every
face's text passes through ``printable``, which shows them escaped as Python's repr does
(``\\x1b``), as error messages already did: newline and tab are the only ones kept.

The line faces call it where outcomes become lines (commands/render.py) and wrap the batch
commands' stdout and stderr (``PrintableStream``); the app escapes its cells and lines where
they are made, and ``ControlFilter`` is the net under every line it draws.
"""
from __future__ import annotations

import io
import re
from typing import TextIO

# C0 but newline and tab, DEL, C1 (0x9b is a one-byte CSI), and the bidi overrides that
# reorder what a line seems to say
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every control character but newline and tab shown escaped."""
    if text.isprintable():   # no Cc or Cf character at all: the common case, in C
        return text
    return _CONTROL.sub(_escaped, text)


class PrintableStream(io.TextIOBase):
    """A text stream that writes ``printable`` text to the stream it wraps."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(printable(text))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    @property
    def encoding(self) -> str:   # type: ignore[override]
        return self._stream.encoding

    @property
    def errors(self) -> str | None:   # type: ignore[override]
        return self._stream.errors


def picture(text: str) -> str:
    """The app's net: a control character drawn as its one-cell Unicode control picture
    (\\x1b as ␛), so an escape that slipped past the panes still shows and cannot act."""
    return _CONTROL.sub(_pictured, text)


def _pictured(match: re.Match[str]) -> str:
    code = ord(match.group())
    return chr(0x2400 + code) if code < 0x20 else "\u2421" if code == 0x7f else "\ufffd"
