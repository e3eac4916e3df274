"""One served tab's process: `gewb tui` on the served lesson, its sandbox handed over on the
command line, forked by the tabs' zygote (tab_zygote.py) so that it cannot reach beyond its
share of the machine.

- It never imports from the server's folder: the zygote runs with `python -P` in a folder of
  its own, and each tab in a folder of its own (so a student's `numpy.py` is never imported).
- An address-space and a CPU-time cap (setrlimit in the child): one tab's giant model fails on
  its own memory, and a busy loop is ended, instead of starving the class.
- Its own session and process group, and it dies with its parent (PR_SET_PDEATHSIG), which
  dies with the server: closing the server leaves no tab behind.
"""
from __future__ import annotations

import ctypes
import os
import resource
import signal
from dataclasses import dataclass
from pathlib import Path

from workbench.script.access import Access
from workbench.script.consent import FLAG
from workbench.serve.tab_status import ENV as STATUS_ENV

PR_SET_PDEATHSIG = 1   # linux/prctl.h


@dataclass(frozen=True)
class TabLimits:
    memory_mb: int    # RLIMIT_AS of each tab
    cpu_s: int        # RLIMIT_CPU of each tab


def tab_args(spec: str | None, access: Access | None, allow_programs: bool) -> list[str]:
    """The `gewb` arguments each browser tab runs: the served lesson and its sandbox (none:
    --trusted, the full app)."""
    return ["tui", *([] if spec is None else [spec]), *([FLAG] if allow_programs else []),
            *([] if access is None else ["--served", access.to_json()])]


def tab_environment(base: dict[str, str], status_file: Path) -> dict[str, str]:
    """The server's environment, minus relative import paths, with where to report status."""
    env = dict(base)
    if "PYTHONPATH" in env:   # only absolute folders: a relative one is the tab's own folder
        env["PYTHONPATH"] = os.pathsep.join(p for p in env["PYTHONPATH"].split(os.pathsep)
                                            if os.path.isabs(p))
    env[STATUS_ENV] = str(status_file)
    # a tab is one student's: one core at most, and no BLAS threads (the zygote forks)
    env["OPENBLAS_NUM_THREADS"] = env["OMP_NUM_THREADS"] = "1"
    return env


def die_with_parent() -> None:
    """SIGKILL when the parent process ends (a preexec, or in a forked child)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):   # not Linux: the server's shutdown still kills it
        pass


def apply_limits(limits: TabLimits) -> None:
    """In the tab's process: its caps, and death with its parent."""
    memory = limits.memory_mb * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 5))
    die_with_parent()


def kill_group(pid: int, sig: int = signal.SIGKILL) -> None:
    """The tab and anything it started (its own process group)."""
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
