"""`gewb conformance`: the CLI face of the runner. Imports the runner only when the subcommand
runs, so building gewb's parser stays cheap."""
from __future__ import annotations

import argparse

from workbench.cli.user_error import UserError


def add_conformance_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("conformance", help="run the onnx wheel's backend test models through GE "
                                           "and compare with their expected outputs")
    p.add_argument("--suite", default="all", metavar="NAME|all",
                   help="light, light-random, pytorch-converted, pytorch-operator, simple, node "
                        "or all (default)")
    p.add_argument("--via", default="host",
                   help="how a case runs (default host: parse, then the host reference executor)")
    p.add_argument("--seed", type=int, default=0, help="light-random's weights and input seed")
    p.add_argument("-k", dest="keyword", default="", metavar="SUBSTRING",
                   help="only cases whose '<suite>/<case>' id contains SUBSTRING")
    p.set_defaults(func=_cmd_conformance)


def _cmd_conformance(args: argparse.Namespace) -> int:
    from workbench.conformance import runner

    try:
        names = runner.suite_names(args.suite)
        runner.get_via(args.via)
    except runner.UnknownNameError as exc:
        raise UserError(str(exc)) from exc
    reports = []
    for name in names:
        report = runner.run_suite(name, args.via, args.seed, args.keyword,
                                  on_result=lambda r: print(r.line(), flush=True))
        print(f"== {name}: {report.counts()} in {report.seconds:.1f}s", flush=True)
        reports.append(report)
    print("\n".join(runner.summary(reports)))
    return 1 if any(report.failed for report in reports) else 0
