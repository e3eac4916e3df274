"""`gewb om-info MODEL.om`: an OM file's header, partitions, streams and tasks (--json: one
object)."""
from __future__ import annotations

import argparse

from workbench.cli.user_error import UserError


def _cmd_om_info(args: argparse.Namespace) -> int:
    from ge_core.om.om_file import OmFileError
    from ge_core.om.om_info import om_info
    try:
        print(om_info(args.om, json=args.json), end="")
    except (OmFileError, OSError) as exc:
        raise UserError(str(exc)) from exc
    return 0


def add_om_info_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("om-info", help="header, partitions, streams, tasks of an OM file")
    p.add_argument("om", help="an .om file")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(func=_cmd_om_info)
