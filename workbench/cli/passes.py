"""`gewb passes MODEL`: the pass table of a compile with `gewb compile`'s options: every pass of
the optimisation stages and of the build's stream stages, changed or not, with node counts."""
from __future__ import annotations

import argparse

from workbench.cli.compile import add_compile_options, run_atc


def _cmd_passes(args: argparse.Namespace) -> int:
    from workbench.debugger.views.compile_report import pass_table
    result = run_atc(args)
    print(pass_table(result.compiled, result.built, only_changed=args.changed), end="")
    return 0


def add_passes_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("passes", help="the pass table: every pass, changed or not, node counts")
    add_compile_options(p)
    p.add_argument("--changed", action="store_true", help="only passes that changed the graph")
    p.set_defaults(func=_cmd_passes)
