"""What the debugger answers: plain data, one class per kind of result. Faces render these
(the REPL and `gewb run` as text lines, the TUI as widgets); the engine never prints."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union


@dataclass(frozen=True)
class StopReason:
    kind: str            # step, next, finish, breakpoint, watch, fault, run-to, goto, reverse,
                         # interrupt
    text: str            # one line for a face to show
    ident: int | None = None    # the breakpoint's or watch's id
    old: str | None = None      # a watch's value before ...
    new: str | None = None      # ... and after


@dataclass(frozen=True)
class Stopped:
    tick: int
    event: str           # the event the target is parked on, without its tick
    reasons: tuple[StopReason, ...]
    where: str           # "compile > OptimizeOriginalGraph > PrunePass", "program > stream 2 > ..."


@dataclass(frozen=True)
class Finished:
    tick: int            # the last event's tick
    summary: tuple[str, ...]   # how it ended: outputs, exit status, faults, the error


@dataclass(frozen=True)
class Printed:
    text: str
    style: str = "text"  # text, ir, diff or tensor: what a face may highlight it as
    pane: str | None = None   # the app's pane that shows this (graph, passes, device, memory)


@dataclass(frozen=True)
class TableOutcome:
    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    pane: str | None = None   # the app's pane that shows this


@dataclass(frozen=True)
class Error:
    message: str         # one line naming the thing at fault


@dataclass(frozen=True)
class ProgramOutput:
    text: str            # what the target printed while it ran


@dataclass(frozen=True)
class Say:
    text: str            # a lesson's narration


@dataclass(frozen=True)
class Pause:
    """A lesson waits here for the reader (headless replay just goes on)."""


@dataclass(frozen=True)
class Show:
    """`show PANE`: a lesson brings a pane of the app forward (the app's choice of pane made
    explicit); the REPL and transcripts show nothing."""
    pane: str


@dataclass(frozen=True)
class Quit:
    """`quit`: the face leaves (the REPL, the app), a script stops there."""


Outcome = Union[Stopped, Finished, Printed, TableOutcome, Error, ProgramOutput, Say, Pause, Show,
                Quit]
