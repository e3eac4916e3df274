"""Build benchmark: memory plans (and, once the stream allocator reports them, events).

    python scripts/bench_build.py [--models resnet50,vgg19] [--single-stream] [--json]

Per light model: parse, compile_graph, logical stream allocation (LogicalStreamAllocator; every
node on stream 0 where it cannot be imported, or with --single-stream), then assign_memory.
Prints the planned feature map and the no-reuse total over the lower bound (most bytes live at
once), each assigner's total over the lower bound, and which assigner won. Target: planned /
lower bound <= 1.05 everywhere. `--json` prints one object:
{"mem_over_lb": {MODEL: ratio}, "noreuse_over_lb": {MODEL: ratio},
 "events": {MODEL: [before, after, minimum]}, "streams": {MODEL: n}}
(events stay empty until the stream allocator reports them; streams too without it).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable

import onnx

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.compiler.build.annotations import STREAM_ID
from ge_core.compiler.memory import MemoryPlan, assign_memory, check_no_overlap
from ge_core.graph import ComputeGraph
from ge_core.parser import parse_onnx

LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
MODELS = ("bvlc_alexnet", "densenet121", "inception_v1", "inception_v2", "resnet50",
          "shufflenet", "squeezenet", "vgg19", "zfnet512")


def stream_allocator() -> Callable[[ComputeGraph], int] | None:
    """The logical stream allocator if it can be imported, once for every model."""
    try:
        from ge_core.compiler.stream.logical_stream_allocator import LogicalStreamAllocator
        from ge_core.compiler.stream.stream_options import StreamOptions
    except ImportError as exc:
        print(f"no stream allocator ({exc}): every node on stream 0", file=sys.stderr)
        return None
    return lambda graph: LogicalStreamAllocator(StreamOptions()).assign(graph)


def plan_model(name: str, allocate: Callable[[ComputeGraph], int] | None
               ) -> tuple[MemoryPlan, int | None]:
    """The memory plan, and the number of streams (None: no allocator, one stream)."""
    graph = compile_graph(parse_onnx(str(LIGHT / f"light_{name}.onnx")),
                          CompileOptions(dump=None)).graph
    streams = None
    if allocate is None:
        for node in graph:
            node.op_desc.set_attr(STREAM_ID, 0)
    else:
        streams = allocate(graph)
    plan = assign_memory(graph)
    check_no_overlap(plan)
    return plan, streams


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--single-stream", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    allocate = None if args.single_stream else stream_allocator()
    runs = {name: plan_model(name, allocate) for name in filter(None, args.models.split(","))}
    plans = {n: plan for n, (plan, _) in runs.items()}
    streams = {n: s for n, (_, s) in runs.items() if s is not None}
    mem = {n: round(p.mem_over_lower_bound, 4) for n, p in plans.items()}
    noreuse = {n: round(p.no_reuse_bytes / p.lower_bound_bytes, 2) for n, p in plans.items()}
    if args.json:
        print(json.dumps({"mem_over_lb": mem, "noreuse_over_lb": noreuse, "events": {},
                          "streams": streams}))
        return 0
    names = next(iter(plans.values())).assigner_totals if plans else {}
    short = {a: f"#{k}" for k, a in enumerate(names, 1)}
    print(f"{'model':<14}{'streams':>8}{'LB MiB':>9}{'plan/LB':>9}{'noreuse/LB':>11}  "
          f"{'winner':<18}" + "".join(f"{short[a]:>7}" for a in names))
    for n, p in plans.items():
        lb = p.lower_bound_bytes
        print(f"{n:<14}{streams.get(n, '-'):>8}{lb / 2**20:>9.2f}{mem[n]:>9.3f}"
              f"{noreuse[n]:>11.2f}  {p.assigner:<18}" +
              "".join(f"{p.assigner_totals[a] / lb:>7.3f}" for a in names))
    print("columns after the winner: each assigner's total / LB; " +
          ", ".join(f"{s} = {a}" for a, s in short.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
