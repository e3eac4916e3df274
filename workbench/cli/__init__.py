"""`gewb`: the command-line face. Each subcommand is wired here; its logic lives elsewhere.

One module a subcommand (tui, graph, ops, compile, passes, lessons, om_info, conformance,
devrun, exec, repl, run), each with its ``add_<name>_parser`` and the function the subcommand
runs: argument parsing and printing only. Bad input is a UserError (user_error.py): one line, exit status 2.
"""
from __future__ import annotations

import argparse
import sys
from typing import Callable, Sequence

from workbench.cli.user_error import UserError

__all__ = ["UserError", "main"]


def _parser_adders() -> list[Callable[[argparse._SubParsersAction], None]]:
    """In `gewb --help` order. Imported here, not above: a subcommand module may import
    user_error, which runs this package first."""
    from workbench.cli.compile import add_compile_parser
    from workbench.cli.conformance import add_conformance_parser
    from workbench.cli.devrun import add_devrun_parser
    from workbench.cli.exec import add_exec_parser
    from workbench.cli.graph import add_graph_parser
    from workbench.cli.lessons import add_lessons_parser
    from workbench.cli.om_info import add_om_info_parser
    from workbench.cli.ops import add_ops_parser
    from workbench.cli.passes import add_passes_parser
    from workbench.cli.repl import add_repl_parser
    from workbench.cli.run import add_run_parser
    from workbench.cli.serve import add_serve_parser
    from workbench.cli.tui import add_tui_parser
    return [add_tui_parser, add_graph_parser, add_ops_parser, add_compile_parser, add_passes_parser,
            add_lessons_parser, add_serve_parser,
            add_om_info_parser, add_conformance_parser, add_devrun_parser, add_exec_parser,
            add_repl_parser, add_run_parser]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gewb", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in _parser_adders():
        add(sub)
    args = parser.parse_args(argv)
    if args.command is None:  # the main job: the workbench app on the bundled sample
        args = parser.parse_args(["tui"])
    try:
        return args.func(args)
    except UserError as exc:
        print(f"gewb {args.command}: {exc}", file=sys.stderr)
        return 2
    except (BrokenPipeError, KeyboardInterrupt):
        return 130
