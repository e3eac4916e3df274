"""A `.gwb` script's text and its command lines: what replay runs and a lesson counts as its
steps. A script is UTF-8, as the faces save it (a byte-order mark is allowed), and so is the
transcript `gewb run --expect` checks it against; any other bytes are one ScriptError naming the
file and where the first bad byte is."""
from __future__ import annotations

from pathlib import Path


class ScriptError(ValueError):
    """A script that cannot be read: the message names it."""


def read_script(script: Path) -> str:
    try:
        data = script.read_bytes()
    except OSError as exc:
        raise ScriptError(f"{script}: cannot read ({exc.strerror or exc})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ScriptError(f"{script}: not UTF-8 text (byte {exc.start}, line {line}: "
                          f"{data[exc.start]:#04x})") from None


def command_lines(script: Path, text: str | None = None) -> list[tuple[int, str]]:
    """The command lines with their line numbers (blank lines and ``#`` comments skipped);
    ``text``: the script's, if already read."""
    text = read_script(script) if text is None else text
    return [(n, raw.strip()) for n, raw in enumerate(text.splitlines(), 1)
            if raw.strip() and not raw.strip().startswith("#")]
