"""`gewb run FILE.gwb`: replay a script headless, print its transcript, and with --expect fail
with a diff when the transcript is not the expected one (how CI checks the lessons). A script
that runs host programs, or writes outside its folder (or --output-dir), needs
--allow-programs (workbench/script/consent.py, access.py)."""
from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from workbench.cli.user_error import UserError


def _cmd_run(args: argparse.Namespace) -> int:
    from workbench.script.access import Access
    from workbench.script.consent import Consent, ConsentRefused
    from workbench.commands.replay import replay
    from workbench.script.script_lines import ScriptError, read_script
    script = Path(args.script)
    if not script.is_file():
        raise UserError(f"no such script: {script}")
    try:
        result = replay(script, keep_going=args.keep_going,
                        consent=Consent(allow=args.allow_programs),
                        access=Access(output_dir=Path(args.output_dir)
                                      if args.output_dir else None))
    except (ScriptError, ConsentRefused) as exc:
        raise UserError(str(exc)) from None
    if args.expect is None:
        sys.stdout.write(result.transcript)
        return 1 if result.errors else 0
    expected_path = Path(args.expect)
    if not expected_path.is_file():
        raise UserError(f"no such expected transcript: {expected_path}")
    try:
        expected = read_script(expected_path)   # as the faces save it: UTF-8, or one line
    except ScriptError as exc:
        raise UserError(str(exc)) from None
    if result.transcript == expected:
        print(f"{script}: transcript matches {expected_path} "
              f"({len(result.lines)} lines)")
        return 1 if result.errors else 0
    sys.stdout.writelines(difflib.unified_diff(
        expected.splitlines(True), result.transcript.splitlines(True), str(expected_path),
        f"{script} (replayed)"))
    print(f"{script}: transcript differs from {expected_path}")
    return 1


def add_run_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="replay a .gwb debugger script headless and print its "
                                   "transcript")
    p.add_argument("script", help="a .gwb script (a saved session or a lesson)")
    p.add_argument("--expect", metavar="FILE.txt",
                   help="compare the transcript with FILE.txt; on a difference print the diff "
                        "and exit 1")
    p.add_argument("--keep-going", action="store_true",
                   help="go on after a line that fails (it is reported as file:line)")
    p.add_argument("--allow-programs", action="store_true",
                   help="let the script run the host programs (.py) its `# programs:` header "
                        "names; they run with your rights")
    p.add_argument("--output-dir", metavar="DIR",
                   help="where the script's save-script, dump and export land (default: its "
                        "own folder; elsewhere only where its `# writes:` header names)")
    p.set_defaults(func=_cmd_run)
