"""Consent to run the host programs a script opens.

`target X.py` runs X, a Python program, with the user's rights, so replaying a shared script (a
lesson) must not run one unasked. A script names the programs it runs in a header line,

    #   programs: ../devrun/missing_wait.py

(paths as its `target` lines write them, relative to the script's folder), so the user knows
what they agree to; a file it saves outside its own folder (save-script, dump, export) is named
the same way in a ``# writes:`` line and agreed to with them (workbench/script/access.py).
`gewb run --allow-programs` agrees up front; the REPL and the TUI ask (y/N) through an ``Ask``
callback. While the script runs, its session opens only the programs agreed
to (DebugSession.programs); a line typed by the user is the user's own consent.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from workbench.terminal_text import printable

PROGRAMS_TAG = "programs:"
WRITES_TAG = "writes:"   # files a script saves outside its folder (access.py), agreed alike
FLAG = "--allow-programs"
Ask = Callable[[str], bool]   # a y/N question -> yes?


class ConsentRefused(ValueError):
    """A script may not run a host program: the message names it and how to agree."""


@dataclass(frozen=True)
class Consent:
    """How a face agrees to the programs a script names: up front (a flag), or by asking."""
    allow: bool = False
    ask: Ask | None = None


def named_programs(text: str) -> list[str]:
    """The programs the ``# programs:`` lines of a script's opening comments name, in order."""
    return _named(text, PROGRAMS_TAG)


def _named(text: str, tag: str) -> list[str]:
    names: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break
        body = stripped.lstrip("#").strip()
        if body.startswith(tag):
            names += body[len(tag):].replace(",", " ").split()
    return names


def shown(path: Path) -> str:
    """A path as the user would type it from the working directory."""
    relative = os.path.relpath(path)
    return relative if not relative.startswith("..") else str(path)


def _asked(script: Path, text: str) -> tuple[frozenset[Path], str]:
    """The programs and the outside files (resolved) ``script``'s header names, and the words
    that name them."""
    def resolved(tag: str) -> tuple[Path, ...]:
        return tuple(dict.fromkeys((script.parent / n).resolve() for n in _named(text, tag)))
    programs, writes = resolved(PROGRAMS_TAG), resolved(WRITES_TAG)
    runs = (f"runs the host program{'s' if len(programs) > 1 else ''} "
            f"{', '.join(shown(p) for p in programs)}") if programs else ""
    saves = f"writes {', '.join(shown(p) for p in writes)}" if writes else ""
    return (frozenset(programs + writes),
            printable(f"{script.name} {' and '.join(filter(None, (runs, saves)))}"))


def question(script: Path, text: str) -> str | None:
    """What a face that asks shows the user (None: the script needs no consent)."""
    paths, what = _asked(script, text)
    return f"{what} (Python, with your rights). Run it?" if paths else None


def consent_to_programs(script: Path, text: str, consent: Consent) -> frozenset[Path]:
    """The programs (resolved) that ``script`` may run, and the files outside its folder it may
    write, once the user agreed to every one its header names; ConsentRefused, naming them, if
    not."""
    paths, what = _asked(script, text)
    if not paths or consent.allow:
        return paths
    if consent.ask is None:
        raise ConsentRefused(f"{what}: pass {FLAG} to let it (it runs with your rights)")
    if consent.ask(question(script, text)):
        return paths
    raise ConsentRefused(f"{what}: not run (you answered no; {FLAG} agrees up front)")


def check_program(spec: str, program: Path, allowed: frozenset[Path]) -> None:
    """A script's `target` line opening ``program``: only one its header named and the user
    agreed to."""
    if program not in allowed:
        raise ConsentRefused(f"target {spec}: a host program this script's header does not "
                             f"name: add `# {PROGRAMS_TAG} {spec}` to it, then replay it with "
                             f"{FLAG}")
