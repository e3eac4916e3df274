"""Build benchmark: memory plans against the lower bound, events against the minimum.

    python scripts/bench_build.py [--models resnet50,vgg19] [--parallel N] [--json] [--smoke]

Per light model: parse, compile_graph, then GE's build (build_model: logical streams, memory,
sync events, split, tasks) with ge.streamMaxParallelNum = N (default 1, as GE). Prints the
planned feature map and the no-reuse total over the lower bound (most bytes live at once),
each assigner's total over the lower bound and which won, the events GE inserts and keeps after
its three optimisations next to the minimum the transitive reduction allows, and the streams.
Target: planned / lower bound <= 1.05 everywhere. `--json` prints one object:
{"mem_over_lb": {MODEL: ratio}, "noreuse_over_lb": {MODEL: ratio},
 "events": {MODEL: [before, after, minimum]}, "streams": {MODEL: n}}
"""
from __future__ import annotations

import argparse
import faulthandler
import json
import sys
from pathlib import Path

import onnx

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.compiler.memory import check_no_overlap
from ge_core.compiler.model_builder import BuildOptions, BuildResult, build_model
from ge_core.compiler.stream.stream_options import StreamOptions
from ge_core.parser import parse_onnx

LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
MODELS = ("bvlc_alexnet", "densenet121", "inception_v1", "inception_v2", "resnet50",
          "shufflenet", "squeezenet", "vgg19", "zfnet512")


def build(name: str, parallel: int) -> BuildResult:
    graph = compile_graph(parse_onnx(str(LIGHT / f"light_{name}.onnx")),
                          CompileOptions(dump=None)).graph
    built = build_model(graph, BuildOptions(StreamOptions(stream_max_parallel_num=parallel)))
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
    mem = {n: round(b.memory.mem_over_lower_bound, 4) for n, b in runs.items()}
    noreuse = {n: round(b.memory.no_reuse_bytes / b.memory.lower_bound_bytes, 2)
               for n, b in runs.items()}
    events = {n: [b.streams.events_inserted, b.streams.events_optimised,
                  b.streams.events_minimum] for n, b in runs.items()}
    streams = {n: b.streams.physical_streams for n, b in runs.items()}
    if args.json:
        print(json.dumps({"mem_over_lb": mem, "noreuse_over_lb": noreuse, "events": events,
                          "streams": streams}))
        return 0
    names = list(next(iter(runs.values())).memory.assigner_totals) if runs else []
    short = {a: f"#{k}" for k, a in enumerate(names, 1)}
    print(f"{'model':<14}{'streams':>8}{'events':>14}{'LB MiB':>9}{'plan/LB':>9}"
          f"{'noreuse/LB':>11}  {'winner':<18}" + "".join(f"{short[a]:>7}" for a in names))
    for n, b in runs.items():
        p, lb = b.memory, b.memory.lower_bound_bytes
        ev = "/".join(map(str, events[n]))
        print(f"{n:<14}{streams[n]:>8}{ev:>14}{lb / 2**20:>9.2f}{mem[n]:>9.3f}"
              f"{noreuse[n]:>11.2f}  {p.assigner:<18}" +
              "".join(f"{p.assigner_totals[a] / lb:>7.3f}" for a in names))
    print("events: inserted/after GE's optimisations/minimum; columns after the winner: each "
          "assigner's total / LB; " + ", ".join(f"{s} = {a}" for a, s in short.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
