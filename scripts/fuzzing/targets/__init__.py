"""The fuzz targets by name. A target draws cases (small plain data, from a hypothesis
strategy), prepares what its cases share once per worker (``setup``), and judges one case
(``run``) in the worker."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from hypothesis.strategies import SearchStrategy

from fuzzing.verdict import Verdict


@dataclass(frozen=True)
class Target:
    name: str
    cases: Callable[[], SearchStrategy]
    setup: Callable[[str], Any]
    run: Callable[[Any, Any], Verdict]


def _load() -> dict[str, Target]:
    from fuzzing.targets import (acl_calls, commands, escape_text, exec_args, gwb_scripts,
                                 om_files, onnx_files, serve_requests)
    return {t.name: t for t in (onnx_files.TARGET, om_files.TARGET, commands.TARGET,
                                gwb_scripts.TARGET, acl_calls.TARGET, exec_args.TARGET,
                                serve_requests.TARGET, escape_text.TARGET)}


TARGETS = _load()
