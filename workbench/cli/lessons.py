"""`gewb lessons [NAME]`: the lessons in teaching order, each with its one-line summary; with a
name, that lesson's header and how to play it."""
from __future__ import annotations

import argparse
import os

from workbench.cli.user_error import UserError


def _shown(path) -> str:
    """The path as a user in the current directory would type it."""
    relative = os.path.relpath(path)
    return relative if not relative.startswith("..") else str(path)


def _cmd_lessons(args: argparse.Namespace) -> int:
    from workbench.script.lesson import LessonError, all_lessons, find_lesson
    try:
        if args.name is None:
            lessons = all_lessons()
            width = max(len(lsn.name) for lsn in lessons)
            for lsn in lessons:
                print(f"{lsn.name:<{width}}  {lsn.steps:>3} steps  {lsn.summary}")
            print(f"{len(lessons)} lessons; `gewb lessons NAME` says how to play one")
            return 0
        lesson = find_lesson(args.name)
    except LessonError as exc:
        raise UserError(str(exc)) from exc
    print(f"{lesson.name} ({lesson.steps} steps)")
    for line in lesson.header:
        if "gewb run" not in line:   # said below, with the path as typed from here
            print(f"  {line}" if line.strip() else "")
    path = _shown(lesson.path)
    print("play it:")
    print(f"  gewb run {path}                  # the whole lesson, as a transcript")
    print(f"  gewb run {path} --expect {_shown(lesson.expected)}   # as CI checks it")
    return 0


def add_lessons_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lessons", help="the lessons in teaching order, one line each; with a "
                                       "NAME, how to play that one")
    p.add_argument("name", nargs="?", help="a lesson: its file name, or its topic number (06)")
    p.set_defaults(func=_cmd_lessons)
