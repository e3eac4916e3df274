"""`gewb graph [MODEL]`: parse an ONNX model and print GE's IR, one node a line; --dot writes a
Graphviz file, --run runs it on the host reference executor."""
from __future__ import annotations

import argparse
from pathlib import Path

from workbench.cli.model_files import SAMPLE, load_model
from workbench.cli.user_error import UserError


def _cmd_graph(args: argparse.Namespace) -> int:
    from ge_core.graph import dump_graph, to_dot
    from ge_core.ops.host_cpu_ops import host_cpu_notes
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


def add_graph_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("graph", help="parse an ONNX model and print GE's IR, one node a line")
    p.add_argument("model", nargs="?", default=str(SAMPLE), help="an .onnx file (default: sample)")
    p.add_argument("--dot", metavar="FILE", help="also write a Graphviz dot file")
    p.add_argument("--run", action="store_true", help="run it on the host reference executor")
    p.set_defaults(func=_cmd_graph)
