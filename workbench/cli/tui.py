"""`gewb tui [TARGET]` and the main job (`gewb` alone): the workbench app on a target, a lesson or
the bundled sample. Without a terminal the app cannot run: one line says so and how to get the
line debugger instead."""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.cli.model_files import SAMPLE
from workbench.cli.user_error import UserError
from workbench.script.consent import FLAG

if TYPE_CHECKING:
    from workbench.tui.app import Opening

NO_TERMINAL = ("gewb: the workbench app needs a terminal (stdin and stdout are not one); "
               "`gewb repl [TARGET]` is the line debugger, `gewb run FILE.gwb` replays a script")


def opening_for(spec: str | None, cwd: Path) -> Opening:
    """A `.gwb` is a lesson to play, from its own directory (a path, or a lesson's name as
    `gewb lessons` lists it, with or without .gwb); anything else is a target; nothing is the
    bundled sample."""
    from workbench.tui.app import Opening
    if spec is None:
        return Opening(cwd, target=str(SAMPLE))
    if spec.endswith(".gwb"):
        lesson = (cwd / spec).resolve()
        if not lesson.is_file():
            from workbench.script.lesson import LessonError, find_lesson
            try:
                lesson = find_lesson(spec).path
            except LessonError as exc:   # "no lesson 'x.gwb' (`gewb lessons` lists them)"
                raise UserError(str(exc)) from exc
        return Opening(lesson.parent, lesson=lesson)
    if not (cwd / spec).exists():   # a lesson's name as `gewb lessons` lists it: no .gwb
        from workbench.script.lesson import LESSONS_DIR
        named = LESSONS_DIR / f"{spec}.gwb"
        if named.is_file():
            return Opening(named.parent, lesson=named)
    return Opening(cwd, target=spec)


def run_tui(spec: str | None, allow_programs: bool = False, served: str | None = None) -> int:
    # Under `gewb serve` the screen is a browser's: Textual's web driver, not a terminal.
    if "TEXTUAL_DRIVER" not in os.environ and not (sys.stdin.isatty() and sys.stdout.isatty()):
        print(NO_TERMINAL, file=sys.stderr)
        return 2
    from workbench.tui.startup import pause_collector, resume_collector
    pause_collector()   # until the first screen (startup.py): the app's imports and start
    try:
        _run_app(spec, allow_programs, served)
    finally:   # (back already unless the app never drew: a bad target)
        resume_collector()
    return 0


def _run_app(spec: str | None, allow_programs: bool, served: str | None) -> None:
    opening = replace(opening_for(spec, Path.cwd()), allow_programs=allow_programs)
    if served is not None:   # a tab of `gewb serve`: its sandbox, as the server decided it
        from workbench.script.access import Access
        opening = replace(opening, access=Access.from_json(served))
    from workbench.tui.app import WorkbenchApp
    WorkbenchApp(opening).run()


def add_tui_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tui", help="the workbench app: graph, passes and diffs, device streams "
                                   "and SQEs, memory, timeline, on the debugger")
    p.add_argument("target", nargs="?",
                   help="an .onnx model, an .om file, a .py host program, light:NAME, or a "
                        ".gwb lesson to play (a path, or its name as `gewb lessons` lists it)")
    p.add_argument(FLAG, action="store_true", dest="allow_programs",
                   help="let a lesson run the host programs its header names without asking")
    p.add_argument("--served", metavar="POLICY", help=argparse.SUPPRESS)   # gewb serve's tabs
    p.set_defaults(func=lambda args: run_tui(args.target, args.allow_programs, args.served))
