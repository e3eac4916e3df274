"""`gewb serve [LESSON]`: the workbench app in a browser, for a class that follows a lesson with
nothing installed but a browser. textual-serve runs one `gewb tui` per browser tab, each its own
process and its own session, and streams its screen over a websocket; it listens on this
machine only unless told otherwise."""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from workbench.cli.user_error import UserError
from workbench.script.consent import FLAG

DEFAULT_PORT = 8000


def app_command(spec: str | None, allow_programs: bool = False) -> str:
    """The shell command each browser tab runs: this Python, this workbench, the same target
    (a lesson's host programs are asked about in each tab, unless agreed to here)."""
    return shlex.join([sys.executable, "-m", "workbench.cli", "tui",
                       *([] if spec is None else [spec]), *([FLAG] if allow_programs else [])])


def run_serve(args: argparse.Namespace) -> int:
    from workbench.cli.tui import opening_for
    opening = opening_for(args.lesson, Path.cwd())   # a bad name fails here, not in each tab
    spec = str(opening.lesson) if opening.lesson is not None else args.lesson
    if not 0 < args.port < 65536:
        raise UserError(f"--port {args.port}: a port is 1..65535")
    from textual_serve.server import Server
    title = f"GE Workbench: {Path(spec).stem}" if spec else "GE Workbench"
    server = Server(app_command(spec, args.allow_programs), host=args.host, port=args.port, title=title)
    try:
        server.serve()
    except OSError as exc:   # the port is taken, the host is not this machine's
        raise UserError(f"cannot serve on {args.host}:{args.port}: "
                        f"{exc.strerror or exc}") from None
    return 0


def add_serve_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="the workbench app in a browser (a classroom): "
                                     "textual-serve on http://localhost:PORT")
    p.add_argument("lesson", nargs="?",
                   help="a .gwb lesson (a path, or its name as `gewb lessons` lists it), or any "
                        "target `gewb tui` takes; none: the bundled sample")
    p.add_argument("--port", type=int, default=DEFAULT_PORT,
                   help=f"the port to listen on (default {DEFAULT_PORT})")
    p.add_argument("--host", default="localhost",
                   help="the name to listen on (default localhost: this machine only)")
    p.add_argument(FLAG, action="store_true", dest="allow_programs",
                   help="let the lesson run the host programs its header names without asking")
    p.set_defaults(func=run_serve)
