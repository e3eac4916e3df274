"""Commands that look at the parked world: info, print, diff, passes, where, timeline, dump,
export."""
from __future__ import annotations

import difflib
import shlex
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from workbench.commands import sources
from workbench.commands.command import Command, UsageError
from workbench.commands.host_commands import locals_table, print_expression
from workbench.debugger.engine import Debugger
from workbench.debugger.outcomes import Outcome, Printed, TableOutcome
from workbench.debugger.stream_names import event_text
from workbench.debugger.targets.settings import shown
from workbench.debugger.views import (device_views, gepass_view, graph_views, model_views,
                                      timeline_views)
from workbench.debugger.views.device_state import faults

if TYPE_CHECKING:
    from workbench.commands.session import DebugSession


def _breakpoints(d: Debugger) -> Outcome:
    rows = tuple((str(bp.id), "yes" if bp.enabled else "no", str(bp.hits), bp.text)
                 for bp in d.breakpoints.values())
    return TableOutcome("breakpoints", ("id", "enabled", "hits", "breakpoint"), rows) if rows \
        else Printed("no breakpoints")


def _watches(d: Debugger) -> Outcome:
    rows = tuple((str(w.id), "yes" if w.enabled else "no", str(w.hits), w.spec, w.value)
                 for w in d.watches.values())
    return TableOutcome("watches", ("id", "enabled", "hits", "watch", "value"), rows) if rows \
        else Printed("no watches")


def _checkpoints(d: Debugger) -> Outcome:
    """Where going back re-runs from, and the memory the checkpoints hold (their copies of the
    run's state besides the graph, and the journal)."""
    store = d.checkpoints
    points = store.points()
    if not points:
        return Printed("no checkpoints: going back re-runs from the start")
    rows = tuple((str(c.tick), _resumes_at(d, c.position, c.state), str(c.nodes))
                 for c in points)
    return TableOutcome(f"checkpoints ({len(points)}, at most {store.limit} or "
                        f"{store.limit_mib:.0f} MiB; "
                        f"{store.mib():.1f} MiB, {store.held_mib():.1f} of it replaced "
                        f"tensors kept for going back)", ("tick", "resumes at", "nodes"), rows)


def _resumes_at(d: Debugger, position: tuple[int, int], state) -> str:
    """A position as the program reads it: a phase's start, inside one of the parse's loops or
    a compile stage, or after the stage done last."""
    phase, inside = position
    name = d.target.phases[phase].name
    if inside == 0:
        return f"start of {name}"
    if state.parsing is not None:
        return f"{name}, inside {state.parsing.under_way}"
    pipeline = state.pipeline
    if pipeline is not None and pipeline.stage is not None:
        return f"{name}, inside {pipeline.stage}"
    stages = pipeline.result.stages if pipeline is not None else []
    return f"{name}, after {stages[-1].stage}" if stages else f"{name}, position {inside}"


def _faults(d: Debugger) -> Outcome:
    """The faults found so far (deadlocks, races, task faults, timeouts), each once, named by
    the host program's variables where it has them."""
    found = faults(d.run.world.runtime, d.state, d.handle_names())
    if not found:
        return Printed("no faults found" + ("" if d.run.finished else " so far"))
    return TableOutcome(f"faults ({len(found)})", ("#", "fault"),
                        tuple((str(i), f) for i, f in enumerate(found, 1)))


INFO: dict[str, Callable[[Debugger], Outcome]] = {
    "streams": lambda d: device_views.streams(d.run.world.runtime, d.run.tracker.bound,
                                              d.handle_names().streams),
    "events": lambda d: device_views.events(d.run.world.runtime, d.run.tracker.bound,
                                            d.handle_names().events, d.handle_names().streams),
    "notifies": lambda d: device_views.notifies(d.run.world.runtime, d.run.tracker.bound,
                                                d.handle_names().streams),
    "labels": lambda d: device_views.labels(d.run.world.runtime, d.run.tracker.bound),
    "models": lambda d: device_views.models(d.run.world.runtime, d.run.tracker.bound),
    "memory": lambda d: device_views.memory(d.run.world.runtime),
    "faults": _faults,
    "gepass": lambda d: gepass_view.gepass(d.state),
    "memory-plan": lambda d: model_views.memory_plan(d.state),
    "om": lambda d: model_views.om(d.state),
    "ge-models": lambda d: model_views.ge_models(d.run.world),
    "locals": locals_table,
    "breakpoints": _breakpoints,
    "watches": _watches,
    "checkpoints": _checkpoints,
    "settings": lambda d: TableOutcome("settings", ("setting", "value"),
                                       tuple(shown(d.target.settings))),
}


def _info(s: DebugSession, args: list[str]) -> list[Outcome]:
    if len(args) == 1 and args[0] not in INFO:   # a table misspelt: say which were meant
        near = difflib.get_close_matches(args[0], INFO, n=3)
        raise UsageError(f"no table {args[0]!r} for info (" + (
            f"did you mean {', '.join(near)}?)" if near else f"tables: {', '.join(INFO)})"))
    if len(args) != 1:
        raise UsageError(f"usage: info {'|'.join(INFO)}")
    return [_on(INFO_PANES.get(args[0]), INFO[args[0]](s.debugger_or_fail()))]


# the app's pane that shows what an `info` table shows (a lesson's `info streams` brings the
# device pane forward); the others have none
INFO_PANES = {"streams": "device", "events": "device", "notifies": "device", "labels": "device",
              "models": "device", "faults": "device", "memory": "memory",
              "memory-plan": "memory"}


def _on(pane: str | None, outcome: Outcome) -> Outcome:
    """``outcome``, marked as what the app's ``pane`` shows (a plain word: the face decides)."""
    if pane is None or not isinstance(outcome, (Printed, TableOutcome)):
        return outcome
    return replace(outcome, pane=pane)


PRINT_USAGE = ("print node NAME | print tensor NAME | print tensor 0xADDR [SHAPE] [DTYPE] | "
               "print EXPR (a host program)")


def _print(s: DebugSession, raw: list[str]) -> list[Outcome]:
    """Raw: an expression keeps its quotes and spaces (`print d["k"] + 1`)."""
    d = s.debugger_or_fail()
    text = raw[0] if raw else ""
    args = text.split()
    if args and args[0] in ("node", "tensor") and len(args) > 1:
        args = shlex.split(text)
    elif text and d.target.runs_code:
        return [print_expression(d, text)]
    if len(args) == 2 and args[0] == "node":
        return [_on("graph", graph_views.print_node(d.state, args[1]))]
    if len(args) >= 2 and args[0] == "tensor":
        if args[1].lower().startswith("0x"):
            return [_on("memory", device_views.device_tensor(d.run.world.runtime, args[1:]))]
        if len(args) == 2:
            return [graph_views.graph_tensor(d.state, args[1])]
    raise UsageError(f"usage: {PRINT_USAGE}")


def _where(s: DebugSession, args: list[str]) -> list[Outcome]:
    d = s.debugger_or_fail()
    run = d.run
    if not run.started:
        return [Printed("not started (tick 0)")]
    if run.finished:
        return [Printed(f"finished at tick {run.tick}")]
    event = run.parked_at
    return [Printed(f"tick {event.tick}: {event_text(event)}\n"
                    f"  {d.where(event)}")]


def _dump(s: DebugSession, args: list[str]) -> list[Outcome]:
    if len(args) != 1:
        raise UsageError("usage: dump DIR")
    d = s.debugger_or_fail()
    return [graph_views.dump(d.state, lambda files: s.save(args[0], files, "dump"), args[0],
                             d.tick)]


def _export(s: DebugSession, args: list[str]) -> list[Outcome]:
    if len(args) != 2 or args[0] != "trace":
        raise UsageError("usage: export trace FILE.json")
    name = args[1]
    return [timeline_views.export_trace(
        s.debugger_or_fail(), lambda text: s.save(name, {Path(name).name: text}, "export"), name)]


def _complete_print(s: DebugSession, words: list[str], partial: str) -> list[str]:
    if not words:
        return ["node", "tensor"]
    return sources.node_names(s) if len(words) == 1 else []


COMMANDS = [
    Command("info", "info TABLE", f"Tables of the parked world and the session: "
            f"{', '.join(INFO)}.",
            _info, lambda s, w, p: list(INFO) if not w else [], ("i",)),
    Command("print", PRINT_USAGE,
            "A node's IR line with its anchors and peers; a tensor's values with summary "
            "stats (host executor values or constants by name, device memory by address). "
            "At an address, SHAPE and DTYPE as the IR prints them (f32[1,10], [1, 10] f32, "
            "float32): by default the rest of the allocation as f32; ? is a dim that takes "
            "the rest; it never reads past the allocation. In a host program, any other "
            "EXPR is Python evaluated in the selected frame (up, down), as pdb's p.",
            _print, _complete_print, ("p",), raw=True),
    Command("diff", "diff", "The IR diff of the current pass so far, else of the last pass "
                            "(unified, unchanged nodes hidden).",
            lambda s, a: [_on("passes", graph_views.diff(s.debugger_or_fail()))]),
    Command("passes", "passes", "The pass table: every pass run so far, changed or not.",
            lambda s, a: [_on("passes", graph_views.passes(s.debugger_or_fail().state))]),
    Command("where", "where", "stage > pass > node, or model > stream > SQE.", _where,
            aliases=("w",)),
    Command("timeline", "timeline", "The device timeline so far, one bar per stream.",
            lambda s, a: [_on("timeline", timeline_views.timeline(s.debugger_or_fail()))]),
    Command("dump", "dump DIR", "Write the graph(s) as text and dot into DIR.", _dump,
            lambda s, w, p: [f for f in sources.files(s, p) if f.endswith("/")]),
    Command("export", "export trace FILE.json",
            "Write the device timeline and the compile spans as Chrome trace JSON (Perfetto).",
            _export, lambda s, w, p: ["trace"] if not w else sources.files(s, p, (".json",))),
]
