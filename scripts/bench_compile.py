"""Compile-time benchmark: GE Workbench's ATC vs onnxruntime session creation.

    python scripts/bench_compile.py [--models resnet50,vgg19] [--repeat 3] [--json] [--smoke]
                                    [--by-stage]

Per light model: parse + the three optimisation stages + GE's build (streams, sync events,
memory, tasks: what `gewb compile` does), and onnxruntime InferenceSession creation with every
graph optimisation on, side by side in one run (interleaved), median ratio printed. Then the
same on six graph shapes of 1k, 10k and 50k nodes: a chain of Relus, a wide fan-out/fan-in, a
synthetic graph of what the passes look for, one join of every node, a chain of Reshapes that
each go and re-pass the one shape Const they read, and blocks of shape arithmetic that fold one
a round, re-passing the Consts they share. Time per node must stay flat on each (a quadratic
pass shows up here first). Times are CPU seconds of this process (both sides run on one
thread), which other load on a shared machine disturbs least; the garbage of the run before is
collected first, outside the time, on both sides. `--smoke` is one small model and 1k nodes
per shape, for CI. `--json` prints one object:
{"compile_over_ort": {MODEL: ratio}, "us_per_node": {SHAPE: {"1k": x, "10k": y, "50k": z}}}

`--by-stage` also says where each model's compile goes, in runs of their own: ms in the parse,
in each compile stage and each build stage by the pipeline's own stage clock (median of the
runs), and what is left of the whole (the OM's packing, the records); with --json, a
"by_stage" key: {MODEL: {STAGE: ms, ..., "total": ms}}.
"""
from __future__ import annotations

import argparse
import faulthandler
import gc
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
MODELS = ("bvlc_alexnet", "densenet121", "inception_v1", "inception_v2", "resnet50",
          "shufflenet", "squeezenet", "vgg19", "zfnet512")


def compile_once(model: onnx.ModelProto | str) -> float:
    from ge_core.atc import atc
    from ge_core.compiler import CompileOptions
    from ge_core.compiler.model_builder import BuildOptions
    from ge_core.parser import parse_onnx
    gc.collect()   # the last run's graph, cyclic garbage, is not this compile's to sweep
    start = time.process_time()
    atc(parse_onnx(model), CompileOptions(dump=None), BuildOptions())
    return time.process_time() - start


def stage_times(model: onnx.ModelProto | str) -> tuple[dict[str, float], list[str]]:
    """Seconds of one compile by stage: the parse, each compile and build stage by the
    pipeline's stage clock (wall time: each stage's own), and the whole; and which of those
    stages were the compile's."""
    from ge_core.atc import atc
    from ge_core.compiler import CompileOptions
    from ge_core.compiler.model_builder import BuildOptions
    from ge_core.parser import parse_onnx
    gc.collect()
    start = time.perf_counter()
    graph = parse_onnx(model)
    times = {"parse": time.perf_counter() - start}
    result = atc(graph, CompileOptions(dump=None), BuildOptions())
    times["total"] = time.perf_counter() - start
    for record in (*result.compiled.stages, *result.built.stages):
        times[record.stage] = times.get(record.stage, 0.0) + record.seconds
    return times, [record.stage for record in result.compiled.stages]


def stage_table(by_stage: dict[str, dict[str, float]], compile_stages: list[str]) -> list[str]:
    """A row per stage (GE's names: the parse, each compile stage, the build's stages together,
    the rest of the whole), a column per model, in ms."""
    rows: dict[str, list[float]] = {h: [] for h in ("parse", *compile_stages, "build", "rest",
                                                    "total")}
    for times in by_stage.values():
        staged = sum(v for s, v in times.items() if s != "total")
        rows["parse"].append(times["parse"])
        for s in compile_stages:
            rows[s].append(times.get(s, 0.0))
        rows["build"].append(staged - times["parse"] - sum(times.get(s, 0.0)
                                                          for s in compile_stages))
        rows["rest"].append(times["total"] - staged)
        rows["total"].append(times["total"])
    widths = [max(8, len(name) + 2) for name in by_stage]
    lines = [f"{'ms':<22}" + "".join(f"{name:>{w}}" for name, w in zip(by_stage, widths))]
    for head, values in rows.items():
        lines.append(f"{head:<22}" + "".join(f"{v:>{w}.1f}" for v, w in zip(values, widths)))
    return lines


def ort_once(path: str | bytes) -> float:
    import onnxruntime as ort
    opts = ort.SessionOptions()
    opts.log_severity_level = 3  # the light models' unused initializers make it chatty
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.intra_op_num_threads = 1
    gc.collect()   # as before a compile
    start = time.process_time()
    ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    return time.process_time() - start


def _model(name: str, nodes: list, x: str, inits: list | None = None) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, name,
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 16])],
                              [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, 16])],
                              inits or [])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def chain(n_nodes: int) -> onnx.ModelProto:
    """A plain chain of Relus: one stream, every tensor dead as soon as the next is made."""
    nodes = [helper.make_node("Relu", ["input" if i == 0 else f"r{i - 1}"], [f"r{i}"], f"relu{i}")
             for i in range(n_nodes)]
    return _model(f"chain_{n_nodes}", nodes, f"r{n_nodes - 1}")


def wide(n_nodes: int, width: int = 64) -> onnx.ModelProto:
    """Fan-out/fan-in blocks: one tensor read by ``width`` Relus whose outputs a Sum joins, so
    ``width`` tensors are live at once and every join has ``width`` producers."""
    nodes, x = [], "input"
    for b in range(max(1, n_nodes // (width + 1))):
        branches = [f"b{b}_r{i}" for i in range(width)]
        nodes += [helper.make_node("Relu", [x], [r], r) for r in branches]
        nodes.append(helper.make_node("Sum", branches, [f"b{b}_s"], f"b{b}_sum"))
        x = f"b{b}_s"
    return _model(f"wide_{n_nodes}", nodes, x)


def synthetic(n_nodes: int) -> onnx.ModelProto:
    """Blocks of 8 nodes with what the passes look for: a foldable constant subexpression,
    a duplicate (CSE) branch, an Identity, and a residual join."""
    nodes, inits = [], []
    x = "input"
    for b in range(n_nodes // 8):
        p = f"b{b}_"
        inits += [numpy_helper.from_array(np.full([16], 0.5, np.float32), p + "k1"),
                  numpy_helper.from_array(np.full([16], 0.25, np.float32), p + "k2")]
        nodes += [
            helper.make_node("Add", [p + "k1", p + "k2"], [p + "c"], p + "fold"),
            helper.make_node("Mul", [x, p + "c"], [p + "m"], p + "mul"),
            helper.make_node("Relu", [p + "m"], [p + "r1"], p + "relu1"),
            helper.make_node("Relu", [p + "m"], [p + "r2"], p + "relu2"),
            helper.make_node("Add", [p + "r1", p + "r2"], [p + "s"], p + "join"),
            helper.make_node("Identity", [p + "s"], [p + "i"], p + "identity"),
            helper.make_node("Sigmoid", [p + "i"], [p + "g"], p + "sigmoid"),
            helper.make_node("Add", [p + "g", x], [p + "out"], p + "residual"),
        ]
        x = p + "out"
    return _model(f"synthetic_{n_nodes}", nodes, x, inits)


def join(n_nodes: int) -> onnx.ModelProto:
    """One Sum of n - 1 Relus of the input: a node with as many inputs as the graph has nodes
    (a Concat of every branch, a NetOutput of every result), each of its inputs a step of the
    walks that ask whether it is ready."""
    relus = [f"r{i}" for i in range(max(1, n_nodes - 1))]
    nodes = [helper.make_node("Relu", ["input"], [r], r) for r in relus]
    nodes.append(helper.make_node("Sum", relus, ["s"], "sum"))
    return _model(f"join_{n_nodes}", nodes, "s")


def reshapes(n_nodes: int) -> onnx.ModelProto:
    """A chain of Relus, each followed by a Reshape to its own shape through one shape Const
    they all read: each Reshape goes (ReshapeRemovePass) and re-passes the Const in the next
    round, one round a Reshape."""
    nodes, x = [], "input"
    for i in range(max(1, n_nodes // 2)):
        nodes += [helper.make_node("Relu", [x], [f"r{i}"], f"relu{i}"),
                  helper.make_node("Reshape", [f"r{i}", "shape"], [f"s{i}"], f"reshape{i}")]
        x = f"s{i}"
    return _model(f"reshapes_{n_nodes}", nodes, x,
                  [numpy_helper.from_array(np.array([1, 16], np.int64), "shape")])


def folds(n_nodes: int) -> onnx.ModelProto:
    """Blocks of an exported model's shape arithmetic: Shape, Gather, Unsqueeze and Concat
    make a Reshape's shape, then a Relu; each block reads the last, and the Gather's index, the
    Unsqueeze's axes and the Concat's tail are three Consts every block reads. One block folds
    a round, and each round re-passes those Consts."""
    nodes, x = [], "input"
    for b in range(max(1, n_nodes // 6)):
        p = f"b{b}_"
        nodes += [helper.make_node("Shape", [x], [p + "s"], p + "shape"),
                  helper.make_node("Gather", [p + "s", "zero"], [p + "g"], p + "gather", axis=0),
                  helper.make_node("Unsqueeze", [p + "g", "axes"], [p + "u"], p + "unsqueeze"),
                  helper.make_node("Concat", [p + "u", "rest"], [p + "c"], p + "concat", axis=0),
                  helper.make_node("Reshape", [x, p + "c"], [p + "r"], p + "reshape"),
                  helper.make_node("Relu", [p + "r"], [p + "y"], p + "relu")]
        x = p + "y"
    consts = {"zero": np.array(0, np.int64), "axes": np.array([0], np.int64),
              "rest": np.array([-1], np.int64)}
    return _model(f"folds_{n_nodes}", nodes, x,
                  [numpy_helper.from_array(v, k) for k, v in consts.items()])


SHAPES = {"chain": chain, "wide": wide, "synthetic": synthetic, "join": join,
          "reshapes": reshapes, "folds": folds}


def node_counts(text: str) -> list[tuple[str, int]]:
    """``--sizes``: comma-separated node counts, each as written (``1000``) or in thousands
    (``1k``), with the label a report keys it by."""
    sizes = []
    for label in filter(None, text.split(",")):
        thousands = label.endswith("k")
        digits = label[:-1] if thousands else label
        if not digits.isdigit() or not int(digits):
            raise argparse.ArgumentTypeError(f"{label!r} is no node count (as 1000 or 1k)")
        sizes.append((label, int(digits) * (1000 if thousands else 1)))
    return sizes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sizes", type=node_counts, default="1k,10k,50k",
                    help="nodes of each graph shape's runs, as 1000 or 1k (default 1k,10k,50k; "
                         "empty: the light models only)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--by-stage", action="store_true",
                    help="also ms per stage of each model's compile, in runs of their own "
                         "(with --json: a \"by_stage\" key)")
    ap.add_argument("--smoke", action="store_true",
                    help="seconds, for CI: squeezenet once and 1k nodes per shape")
    ap.add_argument("--timeout", type=float, default=3600,
                    help="seconds the whole run may take; past it every "
                         "thread's stack is printed and it fails")
    args = ap.parse_args(argv)
    faulthandler.dump_traceback_later(args.timeout, exit=True)
    if args.smoke:
        args.models, args.repeat, args.sizes = "squeezenet", 1, node_counts("1k")
    ratios: dict[str, float] = {}
    rows = []
    by_stage: dict[str, dict[str, float]] = {}
    compile_stages: dict[str, None] = {}   # as the pipeline names them, in its order
    warm = synthetic(64)   # untimed: the first compile also imports GE, the first session ORT
    compile_once(warm)
    ort_once(warm.SerializeToString())
    for name in filter(None, args.models.split(",")):
        path = str(LIGHT / f"light_{name}.onnx")
        ours, theirs = [], []
        for _ in range(args.repeat):  # interleaved: both see the same machine state
            ours.append(compile_once(path))
            theirs.append(ort_once(path))
        o, t = statistics.median(ours), statistics.median(theirs)
        ratios[name] = round(o / t, 3)
        rows.append((name, o * 1e3, t * 1e3, o / t))
        if args.by_stage:
            runs = [stage_times(path) for _ in range(args.repeat)]
            times = [t for t, _ in runs]
            by_stage[name] = {s: round(statistics.median(t.get(s, 0.0) for t in times) * 1e3, 2)
                              for s in times[0]}
            compile_stages.update(dict.fromkeys(runs[0][1]))
    per_node: dict[str, dict[str, float]] = {shape: {} for shape in SHAPES}
    for label, n in args.sizes:
        for shape, make in SHAPES.items():
            model = make(n)
            n_real = len(model.graph.node)
            times = [compile_once(model) for _ in range(max(1, args.repeat if n <= 10_000 else 1))]
            per_node[shape][label] = round(statistics.median(times) / n_real * 1e6, 2)
    if args.json:
        report = {"compile_over_ort": ratios, "us_per_node": per_node}
        if args.by_stage:
            report["by_stage"] = by_stage
        print(json.dumps(report))
        return 0
    print(f"{'model':<14}{'gewb ms':>10}{'ort ms':>10}{'ratio':>8}")
    for name, o, t, r in rows:
        print(f"{name:<14}{o:>10.1f}{t:>10.1f}{r:>8.2f}")
    if by_stage:
        print("\n".join(stage_table(by_stage, list(compile_stages))))
    for shape, sizes in filter(lambda item: item[1], per_node.items()):
        print(f"{shape}: " + ", ".join(f"{k}: {v} us/node" for k, v in sizes.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
