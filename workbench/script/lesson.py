"""A lesson played by a face that waits: its command lines one at a time, with the line numbers
errors are reported at. `gewb run` replays straight through; the TUI stops at each `pause`."""
from __future__ import annotations

from pathlib import Path


class Lesson:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines = [(n, raw.strip()) for n, raw in enumerate(path.read_text().splitlines(), 1)
                      if raw.strip() and not raw.strip().startswith("#")]
        self.at = 0

    def next_line(self) -> tuple[int, str] | None:
        if self.at >= len(self.lines):
            return None
        self.at += 1
        return self.lines[self.at - 1]

    @property
    def done(self) -> bool:
        return self.at >= len(self.lines)
