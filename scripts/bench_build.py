"""Build benchmark: memory plans against the lower bound, events against the minimum.

    python scripts/bench_build.py [--models resnet50,vgg19] [--parallel N] [--json] [--smoke]

Per light model: parse, compile_graph, then GE's build (build_model: logical streams, memory,
sync events, split, tasks) with ge.streamMaxParallelNum = N (default 1, as GE), the hybrid
running every assigner: GE's two, MemoryPriority's four and our two (not GE). Prints GE's plan
(the smaller of BinaryBlock and MaxBlock, what a default build keeps) and the no-reuse total
over the lower bound (most bytes live at once), each assigner's total over the lower bound (so
a reader sees what the others would save), the events GE inserts and keeps after its three
optimisations next to the minimum the transitive reduction allows, and the streams.
`--json` prints one object: {"mem_over_lb": {MODEL: GE's ratio}, "noreuse_over_lb": {MODEL:
ratio}, "assigner_over_lb": {MODEL: {ASSIGNER: ratio}}, "events": {MODEL: [before, after,
minimum]}, "streams": {MODEL: n}}
"""
from __future__ import annotations

import argparse
import faulthandler
import json
import sys
from pathlib import Path

import onnx

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.compiler.memory import ASSIGNERS, MemoryOptions, check_no_overlap
from ge_core.compiler.memory.hybrid_mem_assigner import GE_DEFAULT
from ge_core.compiler.memory.mem_options import shown_assigner
from ge_core.compiler.model_builder import BuildOptions, BuildResult, build_model
from ge_core.compiler.stream.stream_options import StreamOptions
from ge_core.parser import parse_onnx

LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
MODELS = ("bvlc_alexnet", "densenet121", "inception_v1", "inception_v2", "resnet50",
          "shufflenet", "squeezenet", "vgg19", "zfnet512")


def build(name: str, parallel: int) -> BuildResult:
    graph = compile_graph(parse_onnx(str(LIGHT / f"light_{name}.onnx")),
                          CompileOptions(dump=None)).graph
    built = build_model(graph, BuildOptions(StreamOptions(stream_max_parallel_num=parallel),
                                            MemoryOptions(assigners=tuple(ASSIGNERS))))
    check_no_overlap(built.memory)
    return built


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--parallel", type=int, default=1, help="ge.streamMaxParallelNum")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--smoke", action="store_true", help="seconds, for CI: squeezenet only")
    ap.add_argument("--timeout", type=float, default=3600,
                    help="seconds the whole run may take; past it every "
                         "thread's stack is printed and it fails")
    args = ap.parse_args(argv)
    faulthandler.dump_traceback_later(args.timeout, exit=True)
    if args.smoke:
        args.models = "squeezenet"
    runs = {name: build(name, args.parallel) for name in filter(None, args.models.split(","))}
    by_assigner = {n: {a: round(t / b.memory.lower_bound_bytes, 4)
                       for a, t in b.memory.assigner_totals.items()} for n, b in runs.items()}
    mem = {n: min(ratios[a] for a in GE_DEFAULT) for n, ratios in by_assigner.items()}
    noreuse = {n: round(b.memory.no_reuse_bytes / b.memory.lower_bound_bytes, 2)
               for n, b in runs.items()}
    events = {n: [b.streams.events_inserted, b.streams.events_optimised,
                  b.streams.events_minimum] for n, b in runs.items()}
    streams = {n: b.streams.physical_streams for n, b in runs.items()}
    if args.json:
        print(json.dumps({"mem_over_lb": mem, "noreuse_over_lb": noreuse,
                          "assigner_over_lb": by_assigner, "events": events, "streams": streams}))
        return 0
    short = {a: f"#{k}" for k, a in enumerate(ASSIGNERS, 1)}
    print(f"{'model':<14}{'streams':>8}{'events':>14}{'LB MiB':>9}{'GE/LB':>9}"
          f"{'noreuse/LB':>11}" + "".join(f"{short[a]:>7}" for a in ASSIGNERS))
    for n, b in runs.items():
        ev = "/".join(map(str, events[n]))
        print(f"{n:<14}{streams[n]:>8}{ev:>14}{b.memory.lower_bound_bytes / 2**20:>9.2f}"
              f"{mem[n]:>9.3f}{noreuse[n]:>11.2f}" +
              "".join(f"{by_assigner[n][a]:>7.3f}" for a in ASSIGNERS))
    print("events: inserted/after GE's optimisations/minimum; GE/LB: GE's default plan (the "
          "smaller of #1 and #2); #k: each assigner's total / LB, " +
          ", ".join(f"{s} = {shown_assigner(a)}" for a, s in short.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
