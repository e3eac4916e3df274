"""How a failure met while running a model is told, in one line: the CLI's subcommands and the
debugger's end of a run say it alike."""
from __future__ import annotations

# Exceptions our packages define name what is at fault (a node, a task, a field, a path).
_OURS = ("ge_core", "npu_emu", "workbench")


def failure_text(exc: BaseException) -> str:
    """One line for an exception a run met. Ours say what is at fault; a Python error escaping
    from our code is a bug of ours, and says so (with its class, so it is found and fixed)."""
    if type(exc).__module__.split(".")[0] in _OURS:
        return " ".join(str(exc).split())
    return f"internal error: {type(exc).__name__}: {' '.join(str(exc).split())}"
