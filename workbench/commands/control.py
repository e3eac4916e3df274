"""Commands that move the target: forward, to a place, and back in time."""
from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.commands.command import Command, UsageError, count_arg, number
from workbench.debugger.granularity import GRANULARITIES
from workbench.debugger.outcomes import Outcome

if TYPE_CHECKING:
    from workbench.commands.session import DebugSession


UNITS = f"[{'|'.join(GRANULARITIES)}] [N]"


def _unit_and_count(args: list[str], usage: str) -> tuple[str | None, int]:
    """`step` and `reverse-step` take the same words: an optional stepping unit (the engine
    names one it does not know), then an optional count."""
    if args and not args[0].isdecimal():
        return args[0], count_arg(args, usage, 1)
    return None, count_arg(args, usage)


def _step(s: DebugSession, args: list[str]) -> list[Outcome]:
    return s.debugger_or_fail().step(*_unit_and_count(args, f"step {UNITS}"))


def _next(s: DebugSession, args: list[str]) -> list[Outcome]:
    unit, count = _unit_and_count(args, f"next {UNITS}")
    return s.debugger_or_fail().next(count, unit)


def _reverse_step(s: DebugSession, args: list[str]) -> list[Outcome]:
    return s.debugger_or_fail().reverse_step(*_unit_and_count(args, f"reverse-step {UNITS}"))


def _run_to(s: DebugSession, args: list[str]) -> list[Outcome]:
    if not args:
        raise UsageError("usage: run-to TICK | run-to BREAKPOINT-SPEC (e.g. pass PrunePass)")
    d = s.debugger_or_fail()
    if len(args) == 1 and args[0].isdecimal():
        return d.run_to_tick(int(args[0]))
    return d.run_to(args)


def _complete_step(s: DebugSession, words: list[str], partial: str) -> list[str]:
    return list(GRANULARITIES) if not words else []


def _complete_run_to(s: DebugSession, words: list[str], partial: str) -> list[str]:
    from workbench.commands.breaking import complete_spec
    return complete_spec(s, words)


def _goto(s: DebugSession, args: list[str]) -> list[Outcome]:
    if len(args) != 1:
        raise UsageError("usage: goto TICK")
    return s.debugger_or_fail().goto(number(args[0], "the tick"))


COMMANDS = [
    Command("step", f"step {UNITS}",
            "Run to the next unit of that kind (and make it the stepping unit): a compile "
            "stage, a pass or node pass, a node visit or execution, a task distribution, a "
            "retired SQE, a host program's Python line, or one trace event.", _step,
            _complete_step, ("s",)),
    Command("next", f"next {UNITS}",
            "Like step, but over finer events: whole passes only, the next node in the same "
            "graph, the next SQE on the same stream, the next host line not inside a call.",
            _next, _complete_step, aliases=("n",)),
    Command("continue", "continue", "Run until a breakpoint or watch stops the target, or it ends.",
            lambda s, a: s.debugger_or_fail().cont(), aliases=("c", "cont")),
    Command("finish", "finish",
            "Run to the end of the current host function (its caller's next line), pass, "
            "stage, model execution or phase.",
            lambda s, a: s.debugger_or_fail().finish(), aliases=("fin",)),
    Command("run-to", "run-to TICK | run-to KIND [FILTERS]",
            "Run to a tick, or to the first place matching a breakpoint spec (once).",
            _run_to, _complete_run_to),
    Command("reverse-step", f"reverse-step {UNITS}",
            "Back to the previous unit of that kind (and make it the stepping unit), by "
            "re-executing to it: any unit step takes.", _reverse_step, _complete_step,
            aliases=("rs",)),
    Command("reverse-continue", "reverse-continue", "Back to the previous breakpoint hit.",
            lambda s, a: s.debugger_or_fail().reverse_continue(), aliases=("rc",)),
    Command("goto", "goto TICK",
            "Re-execute deterministically (from the newest checkpoint) to the event of TICK.",
            _goto),
    Command("restart", "restart", "Back to the start: a fresh world, nothing run yet.",
            lambda s, a: s.debugger_or_fail().restart()),
]
