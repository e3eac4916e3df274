"""A `.gwb` script's command lines: what replay runs and a lesson counts as its steps."""
from __future__ import annotations

from pathlib import Path


def command_lines(script: Path) -> list[tuple[int, str]]:
    """The command lines with their line numbers (blank lines and ``#`` comments skipped)."""
    return [(n, raw.strip()) for n, raw in enumerate(script.read_text().splitlines(), 1)
            if raw.strip() and not raw.strip().startswith("#")]
