"""`gewb`: the command-line face. Each subcommand is wired here; its logic lives elsewhere.

One module a subcommand (tui, graph, ops, compile, passes, lessons, om_info, conformance,
devrun, exec, repl, run), each with its ``add_<name>_parser`` and the function the subcommand
runs: argument parsing and printing only. Bad input is a UserError (user_error.py): one line, exit
status 2.
"""
from __future__ import annotations

import argparse
import sys
import warnings
from contextlib import contextmanager
from typing import Callable, Iterator, Sequence

from workbench.cli.user_error import UserError
from workbench.output_path import OutputPathError
from workbench.terminal_text import PrintableStream, printable

# faces that draw on the terminal themselves (the app, the REPL's prompt, the server's log)
INTERACTIVE = ("tui", "repl", "serve")

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


DESCRIPTION = """\
GE Workbench: watch Huawei CANN's Graph Engine (GE) compile a model and its runtime run it, on
an emulated NPU. Step GE's passes, watch anchors, stream ids and memory offsets change, break
when a task goes to a stream, and step the device's task scheduler SQE by SQE.
With no COMMAND, gewb opens the workbench app on the bundled sample model."""

EPILOG = """\
start here:
  gewb                          the workbench app on the sample model (`?`: its keys)
  gewb lessons                  the lessons in teaching order (`gewb lessons 01`: how to play one)
  gewb tui MODEL.onnx           the app on your model (or an .om file, a .py program, a lesson)
  gewb repl MODEL.onnx          the same debugger at a line prompt
  gewb exec MODEL.onnx          run a model once on the emulated NPU

`gewb COMMAND --help` says more about one command."""


def version() -> str:
    """The installed package's version (its metadata, as pip installed it)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed
    try:
        return installed("ge-workbench")
    except PackageNotFoundError:
        return "unknown (the package is not installed: pip install -e .)"


def main(argv: Sequence[str] | None = None) -> int:
    # A kernel computes what the device computes, IEEE inf and nan included, without a word:
    # numpy's "overflow encountered in ..." on stderr is Python talking, not the device; so is
    # its word on a mean or variance of nothing (ReduceMean, GlobalAveragePool of an empty
    # map), which is nan.
    warnings.filterwarnings("ignore", r"(overflow|invalid value|divide by zero|underflow) "
                            r"encountered|Mean of empty slice|Degrees of freedom <= 0",
                            RuntimeWarning)
    parser = argparse.ArgumentParser(prog="gewb", description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"gewb {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND",
                                title="commands")
    for add in _parser_adders():
        add(sub)
    saved = sys.stdout, sys.stderr   # what a model or script says is printed escaped, and so
    sys.stdout, sys.stderr = PrintableStream(sys.stdout), PrintableStream(sys.stderr)
    try:   # is what argparse quotes of a command line (`unrecognized arguments: ...`)
        args = parser.parse_args(argv)
        if args.command is None:  # the main job: the workbench app on the bundled sample
            args = parser.parse_args(["tui"])
        if args.command in INTERACTIVE:   # the app and the REPL escape what they show
            sys.stdout, sys.stderr = saved
        with _interrupts_unprinted():
            return _run(args)
    finally:
        sys.stdout, sys.stderr = saved


@contextmanager
def _interrupts_unprinted() -> Iterator[None]:
    """A Ctrl-C that lands while a finalizer runs (an old event loop of the REPL's prompt,
    collected mid-command: the REPL's pty sweep) is raised there, where Python can only print
    it: "Exception ignored in ... KeyboardInterrupt" and a traceback, the interrupt lost
    anyway. It is dropped unprinted (a second Ctrl-C interrupts); any other error in a
    finalizer is reported as before. (Raised again in the main thread from the hook, it lands
    in the hook itself.)"""
    before = sys.unraisablehook

    def hook(unraisable: "sys.UnraisableHookArgs") -> None:
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            before(unraisable)
    sys.unraisablehook = hook
    try:
        yield
    finally:
        sys.unraisablehook = before


def _run(args: argparse.Namespace) -> int:
    try:
        return args.func(args)
    except (UserError, OutputPathError) as exc:   # escaped: an interactive one's stderr is raw
        print(printable(f"gewb {args.command}: {exc}"), file=sys.stderr)
        return 2
    except MemoryError as exc:   # the host ran out: one line, with the class (it is a limit hit)
        print(printable(f"gewb {args.command}: out of host memory (MemoryError: {exc})"),
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"gewb {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 130
