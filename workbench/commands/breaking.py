"""Breakpoints and watches: set, list, enable, disable, delete; and which faults stop a run
(handle)."""
from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING

from workbench.commands import sources
from workbench.commands.command import Command, UsageError, number
from workbench.debugger.breakpoints import (DISTRIBUTE_TYPES, FAULT_KINDS, KINDS, MODEL_EVENTS,
                                            SQE_TYPES)
from workbench.debugger.breakpoints import facade_apis
from workbench.debugger.fault_stops import ACL_ERROR, HIDE, KINDS as HANDLED, NOSTOP, STOP
from workbench.debugger.outcomes import Outcome, Printed, TableOutcome
from workbench.debugger.stream_names import LOGICAL, RT

if TYPE_CHECKING:
    from workbench.commands.session import DebugSession

_IF = re.compile(r"\s+if\s+")


def _break(s: DebugSession, args: list[str]) -> list[Outcome]:
    """Raw: the condition after `if` keeps its quotes (`if "conv" in node`)."""
    parts = _IF.split(" " + (args[0] if args else ""), maxsplit=1)
    words = shlex.split(parts[0]) + (["if", parts[1]] if len(parts) > 1 else [])
    bp = s.debugger_or_fail().add_breakpoint(words)
    return [Printed(f"breakpoint {bp.id}: {bp.text}")]


def _watch(s: DebugSession, args: list[str]) -> list[Outcome]:
    d = s.debugger_or_fail()
    w = d.add_watch(args)
    unchecked = w.node is not None and (d.state is None or d.state.graph is None)
    note = " (no graph yet, so the node's name cannot be checked)" if unchecked else ""
    return [Printed(f"watch {w.id}: {w.spec} = {w.value}{note}")]


def _handle(s: DebugSession, args: list[str]) -> list[Outcome]:
    """gdb's `handle SIGNAL stop|nostop`, for the runtime's faults."""
    if len(args) not in (0, 2):
        raise UsageError(f"usage: handle [KIND|all {STOP}|{NOSTOP}|{HIDE}] "
                         f"(KIND: {', '.join(HANDLED)})")
    changed = s.fault_stops.handle(args[0].lower(), args[1].lower()) if args else None
    return [TableOutcome("faults", ("fault", "action"), s.fault_stops.rows(changed))]


def _ids(s: DebugSession, args: list[str], usage: str) -> list[int]:
    d = s.debugger_or_fail()
    if args == ["all"]:
        return [*d.breakpoints, *d.watches]
    if not args:
        raise UsageError(f"usage: {usage}")
    ids = [number(a, "a breakpoint id") for a in args]
    for i in ids:
        if d.find(i) is None:
            raise UsageError(f"no breakpoint or watch {i}")
    return ids


def _enable(on: bool):
    def run(s: DebugSession, args: list[str]) -> list[Outcome]:
        ids = _ids(s, args, f"{'enable' if on else 'disable'} ID... | all")
        for i in ids:
            s.debugger_or_fail().find(i).enabled = on
        return [Printed(f"{'enabled' if on else 'disabled'} {', '.join(map(str, ids))}")]
    return run


def _delete(s: DebugSession, args: list[str]) -> list[Outcome]:
    ids = _ids(s, args, "delete ID... | all")
    for i in ids:
        s.debugger_or_fail().delete(i)
    return [Printed(f"deleted {', '.join(map(str, ids)) or 'nothing'}")]


def complete_spec(s: DebugSession, words: list[str]) -> list[str]:
    """Completions for a breakpoint spec (`break` and `run-to` share it)."""
    if not words:
        return list(KINDS)
    kind, n = words[0], len(words)
    if kind == "pass" and n == 1:
        return sources.pass_names(s)
    if kind == "node" and n == 1:
        return sources.node_names(s) + ["type="]
    if kind == "distribute":
        return [f"type={t}" for t in DISTRIBUTE_TYPES] + [f"{LOGICAL}=", f"{RT}=", "node="]
    if kind == "sqe":
        return [f"type={t}" for t in SQE_TYPES] + [f"{RT}={i}" for i in sources.stream_ids(s)]
    if kind == "label" and n == 1:
        return sources.label_ids(s)
    if kind == "wait":
        return ["event", "notify"] if n == 1 else (
            sources.event_ids(s) if words[1] == "event" else sources.notify_ids(s))
    if kind == "fault" and n == 1:
        return list(FAULT_KINDS)
    if kind == "model" and n == 1:
        return list(MODEL_EVENTS)
    if kind == "call" and n == 1:
        return facade_apis()
    return []


def _complete_watch(s: DebugSession, words: list[str], partial: str) -> list[str]:
    n = len(words)
    if n == 0:
        return ["node", "event", "notify", RT]
    what = words[0]
    if what == "node":
        if n == 1:
            return sources.node_names(s)
        if n == 2:
            return ["anchors", "attr", "input", "output"]
        return ["stream_id", "engine", "input_offset", "output_offset"] \
            if n == 3 and words[2] == "attr" else []
    ids = {"event": sources.event_ids, "notify": sources.notify_ids, RT: sources.stream_ids}
    return ids[what](s) if n == 1 and what in ids else []


COMMANDS = [
    Command("break", "break KIND [FILTERS] [if CONDITION]",
            "Stop the target where a pass, node, task, SQE, label, wait, fault or model event "
            f"happens. KIND: pass NAME | node NAME|type=T | distribute [type=T] [{LOGICAL}=N] "
            f"[{RT}=N] [node=NAME] | sqe [type=T] [{RT}=N] | label [ID] | wait event|notify "
            "[ID] | fault [deadlock|race|timeout|oom|task] | model "
            f"[load|execute|finish|abort|unload]. {LOGICAL} is GE's stream (stream "
            f"allocation's id), {RT} the runtime's stream the SQEs run on. CONDITION is an "
            "expression over the event's fields as its event: line names them (and tick); one "
            "that fails on an event stops there with the error.", _break,
            lambda s, w, p: complete_spec(s, w), ("b",), raw=True),
    Command("watch", f"watch node NAME anchors | node NAME attr KEY | node NAME input|output I"
                     f" | event ID | notify ID | {RT} N",
            f"Stop when the value changes, showing old -> new ({RT}: a runtime stream's state "
            "and SQ position).", _watch, _complete_watch),
    Command("handle", f"handle [KIND|all {STOP}|{NOSTOP}|{HIDE}]",
            f"What a fault ({', '.join(FAULT_KINDS)}) does to a run, as gdb's handle: by "
            "default each kind stops it where the runtime finds it, as `break fault KIND` "
            f"would; {NOSTOP} lets the run go on (the fault is still reported when it ends). "
            "race needs set race-check on. A host program's acl-error (a facade call that "
            "returned an error code) is reported where it happened and the run goes on, as "
            f"cuda-gdb's api_failures; {STOP} parks before the call returns, {HIDE} reports "
            "nothing. Its python-error (an exception leaving it) ends the run with its "
            f"traceback; {STOP} parks at the raise, post-mortem. Without arguments: the table.",
            _handle,
            lambda s, w, p: [*HANDLED, "all"] if not w else (
                [STOP, NOSTOP, HIDE] if w[0] == ACL_ERROR else [STOP, NOSTOP]) if len(w) == 1
            else []),
    Command("enable", "enable ID... | all", "Enable breakpoints or watches.", _enable(True),
            lambda s, w, p: sources.breakpoint_ids(s)),
    Command("disable", "disable ID... | all", "Disable breakpoints or watches.", _enable(False),
            lambda s, w, p: sources.breakpoint_ids(s)),
    Command("delete", "delete ID... | all", "Delete breakpoints or watches.", _delete,
            lambda s, w, p: sources.breakpoint_ids(s)),
]
