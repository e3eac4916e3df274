"""`gewb serve [LESSON]`: the workbench app in a browser, for a class that follows a lesson with
nothing installed but a browser. textual-serve runs one `gewb tui` per browser tab, each its own
process and its own session, and streams its screen over a websocket.

Safe by default (workbench/serve/classroom.py): a token in the URL, a sandbox per tab (it opens
only the lesson's files and the bundled samples, runs only the programs the teacher agreed to,
and saves to the student's browser), a cap on tabs, idle tabs closed. `--trusted` (this machine
only) is the full app for one user."""
from __future__ import annotations

import argparse
import ipaddress
import os
import secrets
import socket
from pathlib import Path

from workbench.cli.user_error import UserError
from workbench.script.consent import FLAG

DEFAULT_PORT = 8000
TAB_MB = 150               # what one tab on a lesson takes, with room (bench_serve.py measures)
TAB_MEMORY_MB = 3072       # a tab's address-space cap
TAB_CPU_S = 900            # ... and CPU-time cap
IDLE_TIMEOUT_MIN = 30.0


def default_max_sessions() -> int:
    """As many tabs as the memory available holds, at TAB_MB each."""
    try:
        with open("/proc/meminfo") as f:
            fields = dict(line.split(":", 1) for line in f)
        available_mb = int(fields["MemAvailable"].split()[0]) // 1024
    except (OSError, KeyError, ValueError):
        available_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES") // 2**20
    return max(1, available_mb // TAB_MB)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def served_spec(spec: str | None) -> tuple[str | None, Path]:
    """The lesson or target each tab opens (absolute: a tab runs in its own folder), and the
    file its sandbox is built around."""
    from workbench.cli.model_files import SAMPLE
    from workbench.cli.tui import opening_for
    opening = opening_for(spec, Path.cwd())   # a bad name fails here, not in each tab
    if opening.lesson is not None:
        return str(opening.lesson), opening.lesson
    target = opening.target or str(SAMPLE)
    if target.startswith("light:"):
        return target, SAMPLE
    path = (Path.cwd() / target).resolve()
    if not path.exists():   # refused now, not in each student's tab
        raise UserError(f"no such target: {target}")
    return str(path), path


def announcement(args: argparse.Namespace, token: str, max_sessions: int) -> list[str]:
    """What the teacher reads at start: the URL with the token (as Jupyter prints it), and who
    can reach it when the address is not this machine's loopback."""
    host = args.host if args.host not in ("0.0.0.0", "::") else socket.gethostname()
    lines = [f"GE Workbench classroom: http://{host}:{args.port}/?token={token}",
             f"  teacher's view: http://{host}:{args.port}/class?token={token}"]
    if not is_loopback(args.host):
        lines.append(f"  listening on {args.host}: anyone who can reach this machine's port "
                     f"{args.port} and has the token can open a tab")
    lines.append(f"  {max_sessions} tabs at most; an idle tab closes after "
                 f"{args.idle_timeout:g} min"
                 + ("; trusted: the full app, one user" if args.trusted else ""))
    return lines


def run_serve(args: argparse.Namespace) -> int:
    from workbench.script.access import Access
    from workbench.script.consent import Consent, consent_to_programs
    from workbench.script.script_lines import read_script
    from workbench.serve.tab_process import TabLimits, tab_args
    if not 0 < args.port < 65536:
        raise UserError(f"--port {args.port}: a port is 1..65535")
    loopback = is_loopback(args.host)
    if args.trusted and not loopback:
        raise UserError(f"--trusted serves the full app to one user on this machine only, "
                        f"not on --host {args.host}")
    spec, opened = served_spec(args.lesson)
    access = None
    if not args.trusted:   # the teacher agreed to the programs the lesson names, or to none
        programs = consent_to_programs(opened, read_script(opened), Consent(allow=True)) \
            if opened.suffix == ".gwb" and args.allow_programs else frozenset()
        access = Access.served_tab(opened, programs)
    max_sessions = 1 if args.trusted else args.max_sessions or default_max_sessions()
    if max_sessions < 1:
        raise UserError(f"--max-sessions {max_sessions}: at least one tab")
    from workbench.serve.classroom import Classroom
    token = secrets.token_urlsafe(24)
    title = f"GE Workbench: {Path(spec).stem}" if spec else "GE Workbench"
    server = Classroom(tab_args(spec, access, args.allow_programs), host=args.host,
                       port=args.port, title=title, token=token, max_sessions=max_sessions,
                       idle_timeout=args.idle_timeout * 60,
                       limits=TabLimits(args.tab_memory_mb, args.tab_cpu_s),
                       tab_cwd=Path.cwd() if args.trusted else None)   # trusted: today's app
    for line in announcement(args, token, max_sessions):
        print(line, flush=True)
    try:
        server.serve()
    except OSError as exc:   # the port is taken, the host is not this machine's
        raise UserError(f"cannot serve on {args.host}:{args.port}: "
                        f"{exc.strerror or exc}") from None
    return 0


def add_serve_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="the workbench app in a browser (a classroom): "
                                     "textual-serve on http://localhost:PORT/?token=...")
    p.add_argument("lesson", nargs="?",
                   help="a .gwb lesson (a path, or its name as `gewb lessons` lists it), or any "
                        "target `gewb tui` takes; none: the bundled sample")
    p.add_argument("--port", type=int, default=DEFAULT_PORT,
                   help=f"the port to listen on (default {DEFAULT_PORT})")
    p.add_argument("--host", default="localhost",
                   help="the name to listen on (default localhost: this machine only)")
    p.add_argument(FLAG, action="store_true", dest="allow_programs",
                   help="let the lesson run the host programs its header names (and no other)")
    p.add_argument("--max-sessions", type=int, default=0, metavar="N",
                   help=f"tabs at most (default: the memory available / {TAB_MB} MB)")
    p.add_argument("--idle-timeout", type=float, default=IDLE_TIMEOUT_MIN, metavar="MIN",
                   help=f"close a tab without a key for MIN minutes (default "
                        f"{IDLE_TIMEOUT_MIN:g})")
    p.add_argument("--tab-memory-mb", type=int, default=TAB_MEMORY_MB, metavar="MB",
                   help=f"each tab's address-space cap (default {TAB_MEMORY_MB})")
    p.add_argument("--tab-cpu-s", type=int, default=TAB_CPU_S, metavar="S",
                   help=f"each tab's CPU-time cap (default {TAB_CPU_S} s)")
    p.add_argument("--trusted", action="store_true",
                   help="the full app, unsandboxed, for one user on this machine (loopback "
                        "only)")
    p.set_defaults(func=run_serve)
