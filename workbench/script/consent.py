"""Consent to run the host programs a script opens.

`target X.py` runs X, a Python program, with the user's rights, so replaying a shared script (a
lesson) must not run one unasked. A script names the programs it runs in a header line,

    #   programs: ../devrun/missing_wait.py

(paths as its `target` lines write them, relative to the script's folder), so the user knows
what they agree to. `gewb run --allow-programs` agrees up front; the REPL and the TUI ask (y/N)
through an ``Ask`` callback. While the script runs, its session opens only the programs agreed
to (DebugSession.programs); a line typed by the user is the user's own consent.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

PROGRAMS_TAG = "programs:"
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
    names: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break
        body = stripped.lstrip("#").strip()
        if body.startswith(PROGRAMS_TAG):
            names += body[len(PROGRAMS_TAG):].replace(",", " ").split()
    return names


def shown(path: Path) -> str:
    """A path as the user would type it from the working directory."""
    relative = os.path.relpath(path)
    return relative if not relative.startswith("..") else str(path)


def consent_to_programs(script: Path, text: str, consent: Consent) -> frozenset[Path]:
    """The programs (resolved) that ``script`` may run, once the user agreed to every one its
    header names; ConsentRefused, naming them, if not."""
    paths = tuple(dict.fromkeys((script.parent / name).resolve()
                                for name in named_programs(text)))
    if not paths:
        return frozenset()
    listed = ", ".join(shown(p) for p in paths)
    what = f"{script.name} runs the host program{'s' if len(paths) > 1 else ''} {listed}"
    if consent.allow:
        return frozenset(paths)
    if consent.ask is None:
        raise ConsentRefused(f"{what}: pass {FLAG} to let it (it runs with your rights)")
    if consent.ask(f"{what} (Python, with your rights). Run it?"):
        return frozenset(paths)
    raise ConsentRefused(f"{what}: not run (you answered no; {FLAG} agrees up front)")


def check_program(spec: str, program: Path, allowed: frozenset[Path]) -> None:
    """A script's `target` line opening ``program``: only one its header named and the user
    agreed to."""
    if program not in allowed:
        raise ConsentRefused(f"target {spec}: a host program this script's header does not "
                             f"name: add `# {PROGRAMS_TAG} {spec}` to it, then replay it with "
                             f"{FLAG}")
