"""How a run ended, as the lines of a Finished outcome: outputs, faults, exit status, the error."""
from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.debugger.views.tensor_text import summary
from workbench.failure_text import failure_text

if TYPE_CHECKING:
    from workbench.debugger.run import Run


def finish_summary(run: Run, show_failed_calls: bool = True) -> tuple[str, ...]:
    """``show_failed_calls``: false under `handle acl-error hide`."""
    lines: list[str] = []
    state = run.state
    if state is not None:
        lines += [f"output {name}: {summary(v)}" for name, v in (state.outputs or {}).items()]
        lines += [f"fault: {f}" for f in state.faults]
        lines += state.traceback
        if state.error:
            lines.append(f"error: {state.error}")
        failed = state.program.failed_summary() if state.program is not None else ""
        if failed and show_failed_calls:
            lines.append(f"warning: {failed}")
        hint = state.program.order_hint() if state.program is not None else ""
        if hint and not run.target.settings.race_check:
            lines.append(hint)
        if run.target.runs_code:
            lines.append(f"exit status {state.exit_status}")
    error = run.gate.error
    if error is not None:   # a phase failed: its message names the pass or node, no traceback
        lines.append(f"error: {failure_text(error)}")
    return tuple(lines)
