"""The lessons: the `.gwb` scripts in sample_models/lessons, in teaching order.

A lesson's file name starts with its topic number (``08_logical_streams.gwb``), so sorting by
name is the teaching order. Its header is the comment block it opens with; the first line reads
``# Lesson: <summary>. <more>``, and the summary (up to the first full stop) is what
`gewb lessons` lists. A lesson that opens a host program names it in a ``programs:`` header line
(what the user agrees to run: consent.py). Its steps are its command lines (a `say` paragraph
is one); it has a ``.expected.txt`` transcript beside it, which CI replays it against. Every
face plays it with the one player (player.py): `gewb run` straight through, the app a step at a
time, waiting at each `pause`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from workbench.script.consent import named_programs
from workbench.script.player import block_at
from workbench.script.script_lines import ScriptError, command_lines, read_script

LESSONS_DIR = Path(__file__).resolve().parents[2] / "sample_models" / "lessons"
HEADER_TAG = "Lesson:"
PANE_CHOICE = "show"   # `show PANE`: which pane follows the target, not a thing to read
_NAME = re.compile(r"^(\d\d)_[a-z0-9_]+$")


class LessonError(ValueError):
    """A lesson that is not there or not well formed; the message names it."""


@dataclass(frozen=True)
class Lesson:
    path: Path
    header: tuple[str, ...]   # the opening comment lines, without their "# "
    steps: int                # command lines, a `say` paragraph one (a `pause` is a wait)

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def topic(self) -> int:
        return int(self.name[:2])

    @property
    def expected(self) -> Path:
        return self.path.with_suffix(".expected.txt")

    @property
    def programs(self) -> list[str]:
        """The host programs it runs, as its ``# programs:`` header line names them."""
        return named_programs("".join(f"# {line}\n" for line in self.header))

    @property
    def summary(self) -> str:
        """The header's first sentence, after ``Lesson:``."""
        text = " ".join(line.strip() for line in self.header if not line.startswith("  "))
        text = text.partition(HEADER_TAG)[2].strip()
        first, dot, _ = text.partition(". ")
        return first + dot.strip() if dot else text


def read_lesson(path: Path) -> Lesson:
    if not _NAME.match(path.stem):
        raise LessonError(f"{path.name}: a lesson's name is NN_words.gwb (NN its topic number)")
    try:
        text = read_script(path)
    except ScriptError as exc:
        raise LessonError(str(exc)) from None
    lines = command_lines(path, text)
    first = lines[0][0] if lines else len(text.splitlines()) + 1
    header = [raw.lstrip()[1:].removeprefix(" ") for raw in text.splitlines()[:first - 1]
              if raw.strip().startswith("#")]
    steps, at = 0, 0
    while at < len(lines):   # as the player steps it: a `say` block is one step
        block = block_at(lines, at)
        at += len(block)
        steps += block[0][1] != "pause"
    if not header or HEADER_TAG not in header[0]:
        raise LessonError(f"{path.name}: its first line must be '# {HEADER_TAG} <summary>.'")
    return Lesson(path, tuple(header), steps)


@dataclass(frozen=True)
class CommandWords:
    """The command names (aliases included) the pause rule tells apart. commands/table.py
    makes the one instance from its command table, which this module does not import."""
    moving: frozenset[str]      # run, rewind or reopen the target
    to_a_hit: frozenset[str]    # run it to the next breakpoint or watch hit (continue)
    inside: frozenset[str]      # move on within where it stopped (step, next, finish)
    arming: frozenset[str]      # set a breakpoint or watch
    disarming: frozenset[str]   # delete or disable them (`all`, or the ids named)


def unpaused_narration(path: Path, words: CommandWords) -> list[str]:
    """Where a lesson would run on past what it shows, unread. In the app the student reads
    only at a `pause`; what is on screen is the target where it stands. Three rules:

    - Once the target has first moved, every `say` block speaks about where the target is,
      so a `pause` must come after it before the next command that moves the target.
    - Likewise what a lesson shows where the target stands (any command that neither moves
      it nor sets or deletes a breakpoint: `print`, `info`, `diff`, `where`...): the app
      brings it forward in a pane, and the next move replaces it, so a `pause` must come
      between. A lesson shows a thing for the student to see it, whether its narration
      speaks of it before, after or not at all. `show PANE` is not such a thing: it picks
      the pane that follows the target through the moves after it.
    - A `continue` with a breakpoint or watch set stops at a hit: a place the lesson set out
      to show, and that its narration speaks about (before it, announcing it, or after).
      A `pause` must come before the next command that leaves it (another `continue`, a
      rewind, a reopen); `step`, `next` and `finish` look inside it and may come first.
      Without the pause, `continue` `continue` `say ...` narrates a stop the screen has
      already run past.

    One ``file:line: ...`` per problem."""
    problems: list[str] = []
    moved = False
    said: int | None = None            # the first line of a `say` block not yet paused after
    shown: tuple[int, str] | None = None  # the first thing shown at this stop, not yet paused at
    hit: tuple[int, str] | None = None  # the `continue` whose hit is on screen, not yet paused at
    armed = 0                          # breakpoints and watches set (as far as the text says)
    for lineno, line in command_lines(path):
        word, *args = line.split()
        if word == "say":
            said = lineno if said is None and moved else said
        elif word == "pause":
            said = shown = hit = None
        elif word in words.arming:
            armed += 1
        elif word in words.disarming:
            armed = 0 if not args or "all" in args else max(0, armed - len(args))
        elif word not in words.moving and word != PANE_CHOICE and moved and shown is None:
            shown = (lineno, line)
        if word not in words.moving:
            continue
        if said is not None:
            problems.append(f"{path.name}:{said}: its narration has no `pause` before "
                            f"`{line}` moves the target on")
        if shown is not None:
            problems.append(f"{path.name}:{shown[0]}: `{shown[1]}` shows where the target "
                            f"stands, and `{line}` moves it on with no `pause` to see it")
        said = shown = None
        if hit is not None and word not in words.inside:
            problems.append(f"{path.name}:{hit[0]}: `{hit[1]}` stops at a breakpoint hit, "
                            f"and `{line}` runs past it with no `pause` to see it")
            hit = None
        if word in words.to_a_hit and armed:
            hit = (lineno, line)
        moved = True
    return problems


def all_lessons(directory: Path = LESSONS_DIR) -> list[Lesson]:
    return [read_lesson(p) for p in sorted(directory.glob("*.gwb"))]


def find_lesson(name: str, directory: Path = LESSONS_DIR) -> Lesson:
    """By file name (with or without .gwb), its stem, or its topic number when that is unique."""
    lessons = all_lessons(directory)
    wanted = Path(name).name.removesuffix(".gwb")
    exact = [lsn for lsn in lessons if lsn.name == wanted]
    if exact:
        return exact[0]
    prefix = [lsn for lsn in lessons if lsn.name.startswith(wanted)]
    if len(prefix) == 1:
        return prefix[0]
    if prefix:
        raise LessonError(f"{name!r} names {len(prefix)} lessons: "
                          f"{', '.join(lsn.name for lsn in prefix)}")
    raise LessonError(f"no lesson {name!r} (`gewb lessons` lists them)")
