"""`gewb compile MODEL`: GE's ATC on an ONNX model: the three optimisation stages and the build
(streams, memory, tasks); -o writes the OM file, a compile cache keyed by the graph and the
options skips a rebuild. `gewb passes` takes the same options (add_compile_options)."""
from __future__ import annotations

import argparse
from pathlib import Path

from workbench.cli.model_files import load_model
from workbench.cli.user_error import UserError, failure_text
from workbench.output_path import output_dir, writable_file


def _options(args: argparse.Namespace):
    from ge_core.compiler import CompileOptions, DumpConfig
    from ge_core.compiler.memory.mem_options import MemoryOptions
    from ge_core.compiler.model_builder import BuildOptions
    from ge_core.compiler.stream.stream_options import StreamOptions
    from ge_core.graph.dump import Detail
    dump = (DumpConfig(Path(args.dump), Detail(args.dump_mode), args.dump_level) if args.dump
            else DumpConfig.from_env())
    compile_options = CompileOptions(
        exclude_engines=tuple(filter(None, args.exclude_engines.split(","))), dump=dump,
        check_equivalence=args.check_equivalence, multi_batch=gear_options(args),
        **autofuse_option(args))
    stream = StreamOptions(stream_max_parallel_num=args.stream_max_parallel_num,
                           enable_single_stream=args.single_stream, use_notify=args.notify,
                           minimise_events=args.minimise_events,
                           max_task_count=args.max_task_count,
                           unlimited_stream_depth=args.auto_split)
    return compile_options, BuildOptions(stream, MemoryOptions(disable_reuse=args.no_reuse), dump,
                                         **switchn_option(args))


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


def gear_options(args: argparse.Namespace):
    """ATC's gear options as the compiler's (GE's ge.inputShape, ge.dynamicBatchSize ...)."""
    from ge_core.passes.multi_batch import MultiBatchOptions
    return MultiBatchOptions(args.input_shape, args.dynamic_batch_size, args.dynamic_image_size,
                             args.dynamic_dims)


def autofuse_option(args: argparse.Namespace) -> dict[str, bool]:
    """--autofuse as CompileOptions' keyword; absent, CompileOptions reads GE's AUTOFUSE_FLAGS."""
    return {"autofuse": True} if args.autofuse else {}


def add_autofuse_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--autofuse", action="store_true",
                   help="fuse pointwise chains into AscBackend nodes (GE's autofuse; as "
                        "AUTOFUSE_FLAGS=--enable_autofuse=true)")


def switchn_option(args: argparse.Namespace) -> dict[str, bool]:
    """--switchn as BuildOptions' keyword; absent, BuildOptions reads GE's environment switch."""
    return {"multi_batch_with_switchn": True} if args.switchn else {}


def add_gear_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("multi-batch gears (ATC's --input_shape, --dynamic_*)")
    g.add_argument("--input-shape", default="", metavar="NAME:D,D;...",
                   help="input dims (ge.inputShape): they size the dims a model leaves "
                        "symbolic; -1 keeps one dynamic, or marks where a gear gives the value")
    g.add_argument("--dynamic-batch-size", default="", metavar="N,N,...",
                   help="one static copy of the graph per batch size (ge.dynamicBatchSize)")
    g.add_argument("--dynamic-image-size", default="", metavar="H,W;H,W",
                   help="one copy per image height,width (ge.dynamicImageSize)")
    g.add_argument("--dynamic-dims", default="", metavar="D,D;D,D",
                   help="one copy per set of values of the -1 dims (ge.dynamicDims)")
    g.add_argument("--switchn", action="store_true",
                   help="sink the gears as a StreamSwitchN over one stream per gear (GE r1.x's "
                        "MULTI_BATCH_WITH_SWITCHN), not as labels on one stream (today's GE)")


def add_compile_options(p: argparse.ArgumentParser) -> None:
    """What `gewb compile` and `gewb passes` share: the model, the dumps, the build's options."""
    p.add_argument("model", help="an .onnx file")
    p.add_argument("--dump", metavar="DIR", help="dump the graph at GE's stages into DIR")
    p.add_argument("--dump-level", default="2",
                   help="1 all stages, 2 GE's whitelist, 3 Build, 4 PreRunBegin, 'a|b' by "
                        "substring, 0 every stage and every pass that changed the graph")
    p.add_argument("--dump-mode", type=int, choices=(1, 2, 3), default=2,
                   help="DUMP_GE_GRAPH: 1 full, 2 without data, 3 structure only")
    p.add_argument("--exclude-engines", default="", metavar="A,B",
                   help="engines the placer may not use (ge.exec.exclude_engines)")
    add_autofuse_option(p)
    p.add_argument("--check-equivalence", action="store_true",
                   help="run the host executor after every pass; name the first that changes "
                        "the outputs")
    add_gear_options(p)
    b = p.add_argument_group("build (streams and memory)")
    b.add_argument("--stream-max-parallel-num", type=int, default=1, metavar="N",
                   help="new streams per engine, round-robin (ge.streamMaxParallelNum)")
    b.add_argument("--single-stream", action="store_true", help="ge.enableSingleStream")
    b.add_argument("--notify", action="store_true", help="sync with notifies (ge.event=notify)")
    b.add_argument("--minimise-events", action="store_true",
                   help="beyond GE: drop the events the transitive reduction finds redundant")
    b.add_argument("--max-task-count", type=int, default=2013, metavar="N",
                   help="tasks per stream before SplitStreams cuts (910B: 2013)")
    b.add_argument("--auto-split", action="store_true",
                   help="the device grows streams itself (AutoSplit): skip SplitStreams")
    b.add_argument("--no-reuse", action="store_true", help="ge.exec.disableReuseMemory")


def add_compile_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compile", help="optimise and build a model; -o writes the OM (ATC)")
    add_compile_options(p)
    p.add_argument("-o", "--output", metavar="MODEL.om", help="write the OM file")
    p.add_argument("--no-cache", action="store_true",
                   help="always rebuild (the cache is keyed by the graph and the options)")
    p.add_argument("--print-graph", action="store_true", help="print the optimised IR")
    p.add_argument("--pass-table", action="store_true", help="print the per-pass table")
    p.set_defaults(func=_cmd_compile)
