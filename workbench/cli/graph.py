"""`gewb graph [MODEL]`: parse an ONNX model and print GE's IR, one node a line; --dot writes a
Graphviz file, --run runs it on the host reference executor."""
from __future__ import annotations

import argparse

from ge_core.exec_timeout import HOST_NODE_NS
from ge_core.ge_options import Stage
from workbench.cli.ge_option_flags import add_ge_options
from workbench.cli.model_files import SAMPLE, load_model
from workbench.cli.user_error import UserError
from workbench.output_path import write_output


def _cmd_graph(args: argparse.Namespace) -> int:
    from ge_core.graph import dump_graph, to_dot
    from ge_core.ops.host_cpu_ops import host_cpu_notes
    graph = load_model(args.model)
    print(dump_graph(graph), end="")
    for note in host_cpu_notes(graph, placed=False):
        print(note)
    if args.dot:
        write_output(args.dot, lambda p: p.write_text(to_dot(graph)), "--dot")
        print(f"dot written to {args.dot}")
    if args.run:
        _run_on_host(graph, args.exec_timeout)
    return 0


def _run_on_host(graph, timeout: int) -> None:
    from ge_core.executor import ExecutionError, FeedError, HostExecutor, random_feeds
    from workbench.debugger.views.tensor_text import summary
    try:
        outputs = HostExecutor(graph, timeout_ms=timeout).run(random_feeds(graph))
    except (ExecutionError, FeedError) as exc:
        raise UserError(str(exc)) from exc
    print("\nhost run on seeded random inputs (seed 0):")
    for name, value in outputs.items():
        print(f"  {name}: {summary(value)}")


def add_graph_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("graph", help="parse an ONNX model and print GE's IR, one node a line")
    p.add_argument("model", nargs="?", default=str(SAMPLE), help="an .onnx file (default: sample)")
    p.add_argument("--dot", metavar="FILE", help="also write a Graphviz dot file")
    p.add_argument("--run", action="store_true",
                   help="run it on the host reference executor (--exec-timeout bounds it: "
                        f"the host counts {HOST_NODE_NS // 1000} us a node)")
    add_ge_options(p, frozenset({Stage.EXECUTE}))
    p.set_defaults(func=_cmd_graph)
