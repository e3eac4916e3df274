"""`gewb`: the command-line face. Each subcommand is wired here; its logic lives elsewhere."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Sequence

SAMPLE = Path(__file__).resolve().parent.parent / "sample_models" / "tiny_cnn.onnx"


class UserError(Exception):
    """Bad input from the user: printed as one line, exit status 2, never a traceback."""


def _cmd_graph(args: argparse.Namespace) -> int:
    from ge_core.graph import dump_graph, to_dot
    from ge_core.parser import ParseError, parse_onnx
    try:
        graph = parse_onnx(args.model)
    except ParseError as exc:
        raise UserError(str(exc)) from exc
    print(dump_graph(graph), end="")
    if args.dot:
        Path(args.dot).write_text(to_dot(graph))
        print(f"dot written to {args.dot}")
    if args.run:
        _run_on_host(graph)
    return 0


def _run_on_host(graph) -> None:
    import numpy as np

    from ge_core.executor import ExecutionError, HostExecutor
    rng = np.random.default_rng(0)
    feeds = {}
    for n in graph.input_nodes:
        desc = n.op_desc.output_descs[0]
        shape = [d if d > 0 else 1 for d in desc.shape.dims] if desc.shape.rank else []
        feeds[n.op_desc.output_names[0] or n.name] = rng.random(shape).astype(desc.dtype.to_numpy())
    try:
        outputs = HostExecutor(graph).run(feeds)
    except ExecutionError as exc:
        raise UserError(str(exc)) from exc
    print("\nhost run on seeded random inputs (seed 0):")
    for name, value in outputs.items():
        v = np.asarray(value)
        stats = f"min {v.min():.6g} max {v.max():.6g} mean {v.mean():.6g}" if v.size else "empty"
        print(f"  {name}: {v.dtype}{list(v.shape)} {stats}")


def _add_graph_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("graph", help="parse an ONNX model and print GE's IR, one node a line")
    p.add_argument("model", nargs="?", default=str(SAMPLE), help="an .onnx file (default: sample)")
    p.add_argument("--dot", metavar="FILE", help="also write a Graphviz dot file")
    p.add_argument("--run", action="store_true", help="run it on the host reference executor")
    p.set_defaults(func=_cmd_graph)


def _parser_adders() -> list[Callable[[argparse._SubParsersAction], None]]:
    from workbench.conformance import add_conformance_parser
    return [_add_graph_parser, add_conformance_parser]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gewb", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in _parser_adders():
        add(sub)
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["graph", str(SAMPLE), "--run"])
    try:
        return args.func(args)
    except UserError as exc:
        print(f"gewb {args.command}: {exc}", file=sys.stderr)
        return 2
    except (BrokenPipeError, KeyboardInterrupt):
        return 130


if __name__ == "__main__":
    sys.exit(main())
