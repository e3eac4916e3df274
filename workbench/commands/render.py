"""Outcomes as text lines: what the REPL prints and what a transcript holds. The format is
stable on purpose (no wall-clock times, no Python ids) so `gewb run --expect` can compare it."""
from __future__ import annotations

from functools import singledispatch

from workbench.debugger.outcomes import (Error, Finished, Outcome, Pause, Printed, ProgramOutput,
                                         Quit, Say, Show, Stopped, TableOutcome)
from workbench.terminal_text import printable

PROMPT = "> "


def render(outcome: Outcome) -> list[str]:
    """An outcome's lines, as every face shows them: what the model, the script or the program
    said in them escaped (terminal_text.py), never sent to a terminal raw."""
    return [printable(line) for line in _lines(outcome)]


@singledispatch
def _lines(outcome: Outcome) -> list[str]:
    raise TypeError(f"no rendering for {type(outcome).__name__}")


@_lines.register
def _(o: Stopped) -> list[str]:
    reasons = "; ".join(r.text for r in o.reasons)
    return [f"stopped at tick {o.tick}: {reasons}", f"  event: {o.event}", f"  where: {o.where}"]


@_lines.register
def _(o: Finished) -> list[str]:
    return [f"finished at tick {o.tick}"] + [f"  {line}" for line in o.summary]


@_lines.register
def _(o: Printed) -> list[str]:
    return o.text.splitlines() or [""]


@_lines.register
def _(o: TableOutcome) -> list[str]:
    rows = [o.headers, *o.rows]
    widths = [max(len(r[c]) for r in rows) for c in range(len(o.headers))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]
    return [f"{o.title}:"] + ["  " + line for line in lines]


@_lines.register
def _(o: Error) -> list[str]:
    return [f"error: {o.message}"]


@_lines.register
def _(o: ProgramOutput) -> list[str]:
    return [f"| {line}".rstrip() for line in o.text.splitlines()]


@_lines.register
def _(o: Say) -> list[str]:
    return o.text.splitlines() or [""]


@_lines.register
def _(o: Pause) -> list[str]:
    return ["[pause]"]


@_lines.register
def _(o: Quit) -> list[str]:
    return []


@_lines.register
def _(o: Show) -> list[str]:
    return []   # the app brings the pane forward; a transcript has none


def echoed(line: str) -> bool:
    """Whether a face echoes the command line: a lesson's `say` and `pause` are shown, not
    echoed."""
    return line.split(None, 1)[0] not in ("say", "pause")


def transcript_entry(line: str, outcomes: list[Outcome]) -> list[str]:
    """A command as a transcript shows it: echoed after the prompt (see ``echoed``), then its
    outcomes."""
    echo = [PROMPT + line] if echoed(line) else []
    return echo + [text for o in outcomes for text in render(o)]
