"""`gewb`: the command-line face. Each subcommand is wired here; its logic lives elsewhere."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Sequence

SAMPLE = Path(__file__).resolve().parent.parent / "sample_models" / "tiny_cnn.onnx"


class UserError(Exception):
    """Bad input from the user: printed as one line, exit status 2, never a traceback."""


def _parser_adders() -> list[Callable[[argparse._SubParsersAction], None]]:
    from workbench.conformance import add_conformance_parser
    from workbench.model_commands import add_model_parsers
    from workbench.devrun import add_devrun_parser
    from workbench.exec_command import add_exec_parser
    from workbench.repl import add_repl_parser
    from workbench.script.run_command import add_run_parser
    from workbench.tui.launch import add_tui_parser
    return [add_model_parsers, add_conformance_parser, add_devrun_parser, add_exec_parser,
            add_repl_parser, add_run_parser, add_tui_parser]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gewb", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in _parser_adders():
        add(sub)
    args = parser.parse_args(argv)
    if args.command is None:  # the main job: the workbench app on the bundled sample
        args = parser.parse_args(["tui", str(SAMPLE)])
    try:
        return args.func(args)
    except UserError as exc:
        print(f"gewb {args.command}: {exc}", file=sys.stderr)
        return 2
    except (BrokenPipeError, KeyboardInterrupt):
        return 130


if __name__ == "__main__":
    sys.exit(main())
