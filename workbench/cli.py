"""`gewb`: the command-line face. Each subcommand is wired here; its logic lives elsewhere."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Sequence

SAMPLE = Path(__file__).resolve().parent.parent / "sample_models" / "tiny_cnn.onnx"


class UserError(Exception):
    """Bad input from the user: printed as one line, exit status 2, never a traceback."""


def load_model(path: str):
    """Parse an ONNX file, turning every way it can be bad into one UserError line."""
    from ge_core.parser import ParseError, parse_onnx
    try:
        return parse_onnx(path)
    except ParseError as exc:
        raise UserError(str(exc)) from exc


def _cmd_graph(args: argparse.Namespace) -> int:
    from ge_core.graph import dump_graph, to_dot
    graph = load_model(args.model)
    print(dump_graph(graph), end="")
    if args.dot:
        Path(args.dot).write_text(to_dot(graph))
        print(f"dot written to {args.dot}")
    if args.run:
        _run_on_host(graph)
    return 0


def _run_on_host(graph) -> None:
    import numpy as np

    from ge_core.executor import ExecutionError, HostExecutor, random_feeds
    try:
        outputs = HostExecutor(graph).run(random_feeds(graph))
    except ExecutionError as exc:
        raise UserError(str(exc)) from exc
    print("\nhost run on seeded random inputs (seed 0):")
    for name, value in outputs.items():
        v = np.asarray(value)
        stats = f"min {v.min():.6g} max {v.max():.6g} mean {v.mean():.6g}" if v.size else "empty"
        print(f"  {name}: {v.dtype}{list(v.shape)} {stats}")


def _cmd_ops(args: argparse.Namespace) -> int:
    """Every supported op with its InferShape family and whether a device kernel exists."""
    from ge_core.compiler.engine_placer import EnginePlacer
    from ge_core.graph import ComputeGraph, OpDesc
    from ge_core.ops import get_op_def, supported_ops
    from npu_emu.kernels import has_kernel
    from npu_emu.trace import TraceBus
    probe = ComputeGraph("ops", TraceBus())
    placer = EnginePlacer()
    print(f"{'op':<28}{'family':<14}{'kernel':<8}engine (float tensors)")
    for i, op_type in enumerate(supported_ops()):
        engine = placer.place(probe.add_node(OpDesc(f"n{i}", op_type))).name
        kernel = "yes" if has_kernel(op_type) or engine.endswith("GE_LOCAL") else "-"
        print(f"{op_type:<28}{get_op_def(op_type).family:<14}{kernel:<8}{engine}")
    return 0


def _compile(args: argparse.Namespace):
    from ge_core.compiler import CompileOptions, DumpConfig, compile_graph
    from ge_core.graph.dump import Detail
    graph = load_model(args.model)
    dump = (DumpConfig(Path(args.dump), Detail(args.dump_mode), args.dump_level) if args.dump
            else DumpConfig.from_env())
    options = CompileOptions(exclude_engines=tuple(filter(None, args.exclude_engines.split(","))),
                             dump=dump, check_equivalence=args.check_equivalence)
    try:
        return compile_graph(graph, options)
    except Exception as exc:  # a compile failure names its pass or node; show just that
        raise UserError(f"{args.model}: {exc}") from exc


def _cmd_compile(args: argparse.Namespace) -> int:
    from ge_core.graph import dump_graph
    from workbench.compile_report import pass_table, summary
    result = _compile(args)
    if args.print_graph:
        print(dump_graph(result.graph), end="")
    if args.pass_table:
        print(pass_table(result), end="")
    print(summary(result), end="")
    eq = result.equivalence
    return 1 if eq is not None and eq.first is not None else 0


def _cmd_passes(args: argparse.Namespace) -> int:
    from workbench.compile_report import pass_table
    print(pass_table(_compile(args), only_changed=args.changed), end="")
    return 0


def _add_compile_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="an .onnx file")
    p.add_argument("--dump", metavar="DIR", help="dump the graph at GE's stages into DIR")
    p.add_argument("--dump-level", default="2",
                   help="1 all stages, 2 GE's whitelist, 3 Build, 4 PreRunBegin, 'a|b' by "
                        "substring, 0 every stage and every pass that changed the graph")
    p.add_argument("--dump-mode", type=int, choices=(1, 2, 3), default=2,
                   help="DUMP_GE_GRAPH: 1 full, 2 without data, 3 structure only")
    p.add_argument("--exclude-engines", default="", metavar="A,B",
                   help="engines the placer may not use (ge.exec.exclude_engines)")
    p.add_argument("--check-equivalence", action="store_true",
                   help="run the host executor after every pass; name the first that changes "
                        "the outputs")


def _add_graph_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("graph", help="parse an ONNX model and print GE's IR, one node a line")
    p.add_argument("model", nargs="?", default=str(SAMPLE), help="an .onnx file (default: sample)")
    p.add_argument("--dot", metavar="FILE", help="also write a Graphviz dot file")
    p.add_argument("--run", action="store_true", help="run it on the host reference executor")
    p.set_defaults(func=_cmd_graph)

    p = sub.add_parser("ops", help="list the supported ops: family, kernel, engine")
    p.set_defaults(func=_cmd_ops)

    p = sub.add_parser("compile", help="run GE's optimisation stages (ATC-like)")
    _add_compile_options(p)
    p.add_argument("--print-graph", action="store_true", help="print the optimised IR")
    p.add_argument("--pass-table", action="store_true", help="print the per-pass table")
    p.set_defaults(func=_cmd_compile)

    p = sub.add_parser("passes", help="the pass table: every pass, changed or not, node counts")
    _add_compile_options(p)
    p.add_argument("--changed", action="store_true", help="only passes that changed the graph")
    p.set_defaults(func=_cmd_passes)


def _parser_adders() -> list[Callable[[argparse._SubParsersAction], None]]:
    from workbench.conformance import add_conformance_parser
    from workbench.devrun import add_devrun_parser
    return [_add_graph_parsers, add_conformance_parser, add_devrun_parser]


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
