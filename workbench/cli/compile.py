"""`gewb compile MODEL`: GE's ATC on an ONNX model: the three optimisation stages and the build
(streams, memory, tasks); -o writes the OM file, a compile cache keyed by the graph and the
options skips a rebuild. `gewb passes` takes the same options (add_compile_options)."""
from __future__ import annotations

import argparse
from pathlib import Path

from workbench.cli.ge_option_flags import BUILT, add_ge_options, ge_option_map
from workbench.cli.model_files import load_model
from workbench.cli.user_error import UserError
from workbench.failure_text import failure_text
from workbench.output_path import output_dir, writable_file


def _options(args: argparse.Namespace):
    """The flags as the compiler's and builder's options: GraphManager reads GE's option map."""
    from ge_core.compiler import DumpConfig
    from ge_core.graph.dump import Detail
    from ge_core.session import GraphManager
    dump = (DumpConfig(Path(args.dump), Detail(args.dump_mode), args.dump_level) if args.dump
            else DumpConfig.from_env())
    manager = GraphManager.from_ge_options(ge_option_map(args, BUILT), dump=dump,
                                           check_equivalence=args.check_equivalence)
    return manager.compile_options, manager.build_options


def run_atc(args: argparse.Namespace, out: str | None = None):
    """ATC on the model with the options given, every compile failure one UserError line."""
    from ge_core.atc import atc, default_cache_dir
    from ge_core.om.compile_cache import CompileCache
    from workbench.cli.compile_progress import compile_progress
    graph = load_model(args.model)
    cache = None if getattr(args, "no_cache", True) else CompileCache(default_cache_dir())
    if args.dump:
        output_dir(args.dump, "--dump")
    if out is not None:
        writable_file(out, "-o")
    try:
        with compile_progress(graph.bus):
            return atc(graph, *_options(args), out=out, cache=cache)
    except OSError as exc:   # the OM or a dump could not be written after all
        raise UserError(f"{exc.filename or out}: cannot write ({exc.strerror or exc})") from exc
    except Exception as exc:  # a compile failure names its pass or node; show just that
        raise UserError(f"{args.model}: {failure_text(exc)}") from exc


def _cmd_compile(args: argparse.Namespace) -> int:
    from ge_core.graph import dump_graph
    from ge_core.om.om_info import om_info
    from workbench.debugger.views.compile_report import build_summary, pass_table, summary
    result = run_atc(args, args.output)
    if result.cache_hit is not None:
        print(f"compile cache hit: reused {result.cache_hit} (--no-cache to rebuild)")
        print(f"wrote {result.om_path}")
        print(om_info(result.om_path), end="")
        return 0
    if args.print_graph:
        print(dump_graph(result.graph), end="")
    if args.pass_table:
        print(pass_table(result.compiled, result.built), end="")
    print(summary(result.compiled), end="")
    print(build_summary(result.built), end="")
    if result.om_path is not None:
        print(f"wrote {result.om_path} ({result.om_path.stat().st_size} bytes)")
    eq = result.compiled.equivalence
    return 1 if eq is not None and eq.first is not None else 0


def add_compile_options(p: argparse.ArgumentParser) -> None:
    """What `gewb compile` and `gewb passes` share: the model, the dumps, the build's options."""
    p.add_argument("model", help="an .onnx file")
    p.add_argument("--dump", metavar="DIR", help="dump the graph at GE's stages into DIR")
    p.add_argument("--dump-level", default="2",
                   help="1 all stages, 2 GE's whitelist, 3 Build, 4 PreRunBegin, 'a|b' by "
                        "substring, 0 every stage and every pass that changed the graph")
    p.add_argument("--dump-mode", type=int, choices=(1, 2, 3), default=2,
                   help="DUMP_GE_GRAPH: 1 full, 2 without data, 3 structure only")
    p.add_argument("--check-equivalence", action="store_true",
                   help="run the host executor after every pass; name the first that changes "
                        "the outputs")
    add_ge_options(p, BUILT)


def add_compile_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compile", help="optimise and build a model; -o writes the OM (ATC)")
    add_compile_options(p)
    p.add_argument("-o", "--output", metavar="MODEL.om", help="write the OM file")
    p.add_argument("--no-cache", action="store_true",
                   help="always rebuild (the cache is keyed by the graph and the options)")
    p.add_argument("--print-graph", action="store_true", help="print the optimised IR")
    p.add_argument("--pass-table", action="store_true", help="print the per-pass table")
    p.set_defaults(func=_cmd_compile)
