"""The model commands: `gewb graph`, `ops`, `compile`, `passes`, `om-info`. Each parses its
arguments, calls ge_core, and prints through workbench.compile_report; no logic of its own."""
from __future__ import annotations

import argparse
from pathlib import Path

from workbench.cli import SAMPLE, UserError


def load_model(path: str):
    """Parse an ONNX file, turning every way it can be bad into one UserError line."""
    from ge_core.parser import ParseError, parse_onnx
    try:
        return parse_onnx(path)
    except ParseError as exc:
        raise UserError(str(exc)) from exc


def _cmd_graph(args: argparse.Namespace) -> int:
    from ge_core.compiler.host_cpu_ops import host_cpu_notes
    from ge_core.graph import dump_graph, to_dot
    graph = load_model(args.model)
    print(dump_graph(graph), end="")
    for note in host_cpu_notes(graph, placed=False):
        print(note)
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
        stats = "empty" if not v.size else f"{v.size} elements" if v.dtype.kind not in "biuf" \
            else f"min {v.min():.6g} max {v.max():.6g} mean {v.mean():.6g}"
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
    width = max(map(len, supported_ops())) + 2  # ai.onnx.ml::ArrayFeatureExtractor
    print(f"{'op':<{width}}{'family':<14}{'kernel':<8}engine (float tensors)")
    for i, op_type in enumerate(supported_ops()):
        engine = placer.place(probe.add_node(OpDesc(f"n{i}", op_type))).name
        kernel = "yes" if has_kernel(op_type) or engine.endswith("GE_LOCAL") else "-"
        print(f"{op_type:<{width}}{get_op_def(op_type).family:<14}{kernel:<8}{engine}")
    return 0


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
        check_equivalence=args.check_equivalence)
    stream = StreamOptions(stream_max_parallel_num=args.stream_max_parallel_num,
                           enable_single_stream=args.single_stream, use_notify=args.notify,
                           minimise_events=args.minimise_events,
                           max_task_count=args.max_task_count,
                           unlimited_stream_depth=args.auto_split)
    return compile_options, BuildOptions(stream, MemoryOptions(disable_reuse=args.no_reuse), dump)


def _atc(args: argparse.Namespace, out: str | None = None):
    from ge_core.atc import atc, default_cache_dir
    from ge_core.om.compile_cache import CompileCache
    graph = load_model(args.model)
    cache = None if getattr(args, "no_cache", True) else CompileCache(default_cache_dir())
    try:
        return atc(graph, *_options(args), out=out, cache=cache)
    except Exception as exc:  # a compile failure names its pass or node; show just that
        raise UserError(f"{args.model}: {exc}") from exc


def _cmd_compile(args: argparse.Namespace) -> int:
    from ge_core.graph import dump_graph
    from ge_core.om.om_info import om_info
    from workbench.compile_report import build_summary, pass_table, summary
    result = _atc(args, args.output)
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


def _cmd_passes(args: argparse.Namespace) -> int:
    from workbench.compile_report import pass_table
    result = _atc(args)
    print(pass_table(result.compiled, result.built, only_changed=args.changed), end="")
    return 0


def _cmd_om_info(args: argparse.Namespace) -> int:
    from ge_core.om.om_file import OmFileError
    from ge_core.om.om_info import om_info
    try:
        print(om_info(args.om, json=args.json), end="")
    except (OmFileError, OSError) as exc:
        raise UserError(str(exc)) from exc
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


def add_model_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("graph", help="parse an ONNX model and print GE's IR, one node a line")
    p.add_argument("model", nargs="?", default=str(SAMPLE), help="an .onnx file (default: sample)")
    p.add_argument("--dot", metavar="FILE", help="also write a Graphviz dot file")
    p.add_argument("--run", action="store_true", help="run it on the host reference executor")
    p.set_defaults(func=_cmd_graph)

    p = sub.add_parser("ops", help="list the supported ops: family, kernel, engine")
    p.set_defaults(func=_cmd_ops)

    p = sub.add_parser("compile", help="optimise and build a model; -o writes the OM (ATC)")
    _add_compile_options(p)
    p.add_argument("-o", "--output", metavar="MODEL.om", help="write the OM file")
    p.add_argument("--no-cache", action="store_true",
                   help="always rebuild (the cache is keyed by the graph and the options)")
    p.add_argument("--print-graph", action="store_true", help="print the optimised IR")
    p.add_argument("--pass-table", action="store_true", help="print the per-pass table")
    p.set_defaults(func=_cmd_compile)

    p = sub.add_parser("passes", help="the pass table: every pass, changed or not, node counts")
    _add_compile_options(p)
    p.add_argument("--changed", action="store_true", help="only passes that changed the graph")
    p.set_defaults(func=_cmd_passes)

    p = sub.add_parser("om-info", help="header, partitions, streams, tasks of an OM file")
    p.add_argument("om", help="an .om file")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(func=_cmd_om_info)
