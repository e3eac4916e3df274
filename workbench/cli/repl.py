"""`gewb repl [TARGET]`: the debugger at a prompt (the REPL face, workbench/repl.py)."""
from __future__ import annotations

import argparse

from workbench.script.consent import FLAG


def _cmd_repl(args: argparse.Namespace) -> int:
    from workbench.repl import run_repl
    return run_repl(args.target, args.allow_programs)


def add_repl_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("repl", help="the debugger at a prompt: step passes, nodes, tasks and "
                                    "SQEs; breakpoints, watches, reverse stepping")
    p.add_argument("target", nargs="?", help="an .onnx model, a .py host program, or light:NAME")
    p.add_argument(FLAG, action="store_true", dest="allow_programs",
                   help="let a script run with `source` run the host programs it names, "
                        "without asking")
    p.set_defaults(func=_cmd_repl)
