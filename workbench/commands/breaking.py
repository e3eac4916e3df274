"""Breakpoints and watches: set, list, enable, disable, delete."""
from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING

from workbench.commands import sources
from workbench.commands.command import Command, UsageError, number
from workbench.debugger.breakpoints import (DISTRIBUTE_TYPES, FAULT_KINDS, KINDS, MODEL_EVENTS,
                                            SQE_TYPES)
from workbench.debugger.outcomes import Outcome, Printed

if TYPE_CHECKING:
    from workbench.commands.session import Session

_IF = re.compile(r"\s+if\s+")


def _break(s: Session, args: list[str]) -> list[Outcome]:
    """Raw: the condition after `if` keeps its quotes (`if "conv" in node`)."""
    parts = _IF.split(" " + (args[0] if args else ""), maxsplit=1)
    words = shlex.split(parts[0]) + (["if", parts[1]] if len(parts) > 1 else [])
    bp = s.debugger_or_fail().add_breakpoint(words)
    return [Printed(f"breakpoint {bp.id}: {bp.text}")]


def _watch(s: Session, args: list[str]) -> list[Outcome]:
    w = s.debugger_or_fail().add_watch(args)
    return [Printed(f"watch {w.id}: {w.spec} = {w.value}")]


def _ids(s: Session, args: list[str], usage: str) -> list[int]:
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
    def run(s: Session, args: list[str]) -> list[Outcome]:
        ids = _ids(s, args, f"{'enable' if on else 'disable'} ID... | all")
        for i in ids:
            s.debugger_or_fail().find(i).enabled = on
        return [Printed(f"{'enabled' if on else 'disabled'} {', '.join(map(str, ids))}")]
    return run


def _delete(s: Session, args: list[str]) -> list[Outcome]:
    ids = _ids(s, args, "delete ID... | all")
    for i in ids:
        s.debugger_or_fail().delete(i)
    return [Printed(f"deleted {', '.join(map(str, ids)) or 'nothing'}")]


def complete_spec(s: Session, words: list[str]) -> list[str]:
    """Completions for a breakpoint spec (`break` and `run-to` share it)."""
    if not words:
        return list(KINDS)
    kind, n = words[0], len(words)
    if kind == "pass" and n == 1:
        return sources.pass_names(s)
    if kind == "node" and n == 1:
        return sources.node_names(s) + ["type="]
    if kind == "distribute":
        return [f"type={t}" for t in DISTRIBUTE_TYPES] + ["stream=", "node="]
    if kind == "sqe":
        return [f"type={t}" for t in SQE_TYPES] + [f"stream={i}" for i in sources.stream_ids(s)]
    if kind == "label" and n == 1:
        return sources.label_ids(s)
    if kind == "wait":
        return ["event", "notify"] if n == 1 else (
            sources.event_ids(s) if words[1] == "event" else sources.notify_ids(s))
    if kind == "fault" and n == 1:
        return list(FAULT_KINDS)
    if kind == "model" and n == 1:
        return list(MODEL_EVENTS)
    return []


def _complete_watch(s: Session, words: list[str], partial: str) -> list[str]:
    n = len(words)
    if n == 0:
        return ["node", "event", "notify", "stream"]
    what = words[0]
    if what == "node":
        return sources.node_names(s) if n == 1 else ["anchors", "attr"] if n == 2 else (
            ["stream_id", "engine", "input_offset", "output_offset"] if n == 3 else [])
    if n == 1:
        return {"event": sources.event_ids, "notify": sources.notify_ids,
                "stream": sources.stream_ids}[what](s) if what in ("event", "notify",
                                                                    "stream") else []
    return []


COMMANDS = [
    Command("break", "break KIND [FILTERS] [if CONDITION]",
            "Stop when: pass NAME | node NAME|type=T | distribute [type=T] [stream=N] "
            "[node=NAME] | sqe [type=T] [stream=N] | label [ID] | wait event|notify [ID] | "
            "fault [deadlock|race|timeout|oom|task] | model [load|execute|finish|abort|unload]. "
            "CONDITION is an expression over the event's fields (and tick).", _break,
            lambda s, w, p: complete_spec(s, w), ("b",), raw=True),
    Command("watch", "watch node NAME anchors | node NAME attr KEY | event ID | notify ID | "
                     "stream N",
            "Stop when the value changes, showing old -> new.", _watch, _complete_watch),
    Command("enable", "enable ID... | all", "Enable breakpoints or watches.", _enable(True),
            lambda s, w, p: sources.breakpoint_ids(s)),
    Command("disable", "disable ID... | all", "Disable breakpoints or watches.", _enable(False),
            lambda s, w, p: sources.breakpoint_ids(s)),
    Command("delete", "delete ID... | all", "Delete breakpoints or watches.", _delete,
            lambda s, w, p: sources.breakpoint_ids(s)),
]
