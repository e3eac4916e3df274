"""Breakpoints: `break KIND [FILTERS] [if CONDITION]`.

    pass NAME                          a pass (or a node pass inside one) begins
    node NAME | type=T                 a pass visits the node, or the executor runs it
    distribute [type=T] [logical_stream=N] [rt_stream=N] [node=NAME]
                                       GE's DistributeTask puts a task on a stream
    sqe [type=T] [rt_stream=N]         the device retires an SQE

A stream is named by its kind (stream_names.py): logical_stream, GE's from stream allocation,
or rt_stream, the runtime's that the SQEs run on.
    label [ID]                         control reaches a label: its LabelSet SQE retires (in
                                       order, or after a LabelGoto / LabelSwitchByIndex jump)
    wait event|notify [ID]             a stream reaches a wait: it blocks, or the wait passes
    fault [deadlock|race|timeout|oom|task]   the runtime finds a fault
    model [load|execute|finish|abort|unload]  a model (aclmdlRI) completes its load
                                       (LoadComplete), starts or finishes an execution, is
                                       aborted, or GE unloads it

A host program's side, as pdb and cuda-gdb break on it; their conditions are Python evaluated
in the program's frame (host_frames.py), not over the event's fields:
    FILE:LINE                          the program is about to run that line (HostLine)
    call API                           the program is about to call a facade API
                                       (acl.rt.stream_wait_event): before the call is made
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from operator import attrgetter
from typing import Callable

from ge_core.events import ModelUnloaded, TaskDistributed
from ge_core.executor.events import NodeExecuted
from ge_core.model_task_type import ModelTaskType
from ge_core.passes.events import NodeVisited, PassBegin
from npu_emu.base.trace import TraceEvent
from npu_emu.feature.model import ModelAborted, ModelExecuted, ModelFinished, ModelLoaded
from npu_emu.runtime import FaultFound
from npu_emu.scheduler.events import (EventWaitBlocked, EventWaitSatisfied, NotifyWaitBlocked,
                                      NotifyWaitSatisfied, SqeCompleted)
from npu_emu.scheduler.task import TaskType
from workbench.debugger import listen as keys
from workbench.debugger.conditions import Condition, ConditionError, names_of
from workbench.debugger.granularity import inner_pass_began
from workbench.debugger.host_frames import FrameCondition
from workbench.debugger.listen import Action, Listen
from workbench.debugger.outcomes import StopReason
from workbench.debugger.pass_names import known_pass_names
from workbench.debugger.stream_names import LOGICAL, RT
from workbench.debugger.targets.host_lines import HostLine

FAULT_KINDS = ("deadlock", "race", "timeout", "oom", "task")
SQE_TYPES = tuple(t.name.lower() for t in TaskType)
# The types a distributed TaskDef can have: GE's ModelTaskType (ops_kernel_info_types.h) up to
# MODEL_EXIT; the later members are kernel variants this model's task builder never writes.
DISTRIBUTE_TYPES = tuple(t.name.lower() for t in ModelTaskType if t <= ModelTaskType.MODEL_EXIT)
MODEL_EVENTS = {"load": ModelLoaded.__name__, "execute": ModelExecuted.__name__,
                "finish": ModelFinished.__name__, "abort": ModelAborted.__name__,
                "unload": ModelUnloaded.__name__}
KINDS = ("pass", "node", "distribute", "sqe", "label", "wait", "fault", "model", "call")
LINE_SPEC = re.compile(r"(?P<file>[^:\s]+\.py):(?P<line>\d+)")


class BreakpointError(ValueError):
    pass


@dataclass
class Breakpoint:
    id: int
    spec: str                       # canonical: "sqe type=label_set stream=1"
    listens: tuple[Listen, ...]
    condition: Condition | FrameCondition | None = None
    enabled: bool = True
    hits: int = 0

    @property
    def text(self) -> str:
        return self.spec + (f" if {self.condition.text}" if self.condition else "")

    def entries(self, on_hit: OnHit, on_error: OnError | None = None
                ) -> list[tuple[Listen, Action]]:
        """``on_error``: what a condition that fails does (by default it stops the run with
        the reason, as gdb does: a condition that cannot be tested is no reason to go on)."""
        def action(e: TraceEvent, reasons: list[StopReason]) -> None:
            try:
                holds = self.condition is None or self.condition.holds(e)
            except ConditionError as exc:
                (on_error or condition_failed)(self, e, reasons, str(exc))
                return
            if holds:
                on_hit(self, e, reasons)
        return [(listen, action) for listen in self.listens]


OnHit = Callable[[Breakpoint, TraceEvent, list[StopReason]], None]
OnError = Callable[[Breakpoint, TraceEvent, list[StopReason], str], None]


def condition_failed(bp: Breakpoint, e: TraceEvent, reasons: list[StopReason], error: str
                     ) -> None:
    what = f"breakpoint {bp.id}" if bp.id else f"run-to {bp.text}"
    reasons.append(StopReason("condition", f"Error in testing condition for {what}: {error}",
                              bp.id))


def parse_breakpoint(ident: int, words: list[str]) -> Breakpoint:
    """``words`` after `break`: a kind, its filters, then optionally `if` and a condition."""
    text = None
    if "if" in words:
        at = words.index("if")
        if at == len(words) - 1:
            raise BreakpointError("`if` needs a condition")
        text = " ".join(words[at + 1:])
        words = words[:at]
    if not words:
        raise BreakpointError(f"break what? ({', '.join(KINDS)}, FILE:LINE)")
    if LINE_SPEC.fullmatch(words[0]) or words[0] == "call":
        return _host_breakpoint(ident, words, text)
    condition = Condition(text) if text is not None else None
    if words[0] not in KINDS:
        raise BreakpointError(f"no breakpoint kind {words[0]!r} ({', '.join(KINDS)}, "
                              f"FILE:LINE)")
    kind, args = words[0], words[1:]
    listens, spec = _PARSERS[kind](args)
    if condition is not None:
        known = names_of([listen.kind for listen in listens])
        unknown = sorted(condition.names - known) if known is not None else []
        if unknown:
            raise BreakpointError(f"condition {condition.text!r}: no {', '.join(unknown)} on "
                                  f"these events (names: {', '.join(sorted(known))})")
    return Breakpoint(ident, " ".join([kind, *spec]), tuple(listens), condition)


def _host_breakpoint(ident: int, words: list[str], text: str | None) -> Breakpoint:
    try:
        condition = FrameCondition(text) if text is not None else None
    except ValueError as exc:
        raise BreakpointError(str(exc)) from None
    line = LINE_SPEC.fullmatch(words[0])
    if line is not None:
        if len(words) > 1:
            raise BreakpointError("usage: break FILE:LINE [if EXPR]")
        name, number = line["file"].rsplit("/", 1)[-1], int(line["line"])
        listen = Listen(HostLine.__name__, _line, number, lambda e, t: e.file == name)
        return Breakpoint(ident, f"{name}:{number}", (listen,), condition)
    if len(words) != 2:
        raise BreakpointError("usage: break call API [if EXPR] (e.g. acl.rt.stream_wait_event)")
    api = words[1]
    # (here, not above: importing the facade's event loads the whole facade, which a target
    # that is not a host program never needs)
    from npu_emu.acl.call_events import AclCallMade
    if api not in facade_apis():
        near = difflib.get_close_matches(api, facade_apis(), n=3)
        raise BreakpointError(f"no facade API {api!r}"
                              + (f" (did you mean {', '.join(near)}?)" if near else ""))
    return Breakpoint(ident, f"call {api}", (Listen(AclCallMade.__name__, _api, api),),
                      condition)


_line = attrgetter("line")
_api = attrgetter("api")


def facade_apis() -> list[str]:
    """The facade's APIs by the names a program calls them (acl.rt.create_stream)."""
    import npu_emu.acl as acl
    from npu_emu.acl._call import api_name
    return sorted({api_name(fn) for module in (acl, acl.rt, acl.mdl, acl.util)
                   for fn in vars(module).values() if hasattr(fn, "value_only")})


def _filters(args: list[str], allowed: tuple[str, ...], positional: str | None = None
             ) -> dict[str, str]:
    """key=value words (and at most one bare word, taken as ``positional``)."""
    out: dict[str, str] = {}
    for a in args:
        key, eq, value = a.partition("=")
        if not eq:
            if positional is None or positional in out:
                raise BreakpointError(f"unexpected {a!r} (filters: "
                                      f"{', '.join(k + '=' for k in allowed)})")
            key, value = positional, a
        elif key == "stream" and "stream" not in allowed:
            kinds = " or ".join(f"{k}=" for k in allowed if k in (LOGICAL, RT))
            raise BreakpointError(f"which stream? {kinds} ({LOGICAL}: GE's, from stream "
                                  f"allocation; {RT}: the runtime's, that SQEs run on)")
        elif key not in allowed:
            raise BreakpointError(f"no filter {key!r} here (filters: "
                                  f"{', '.join(k + '=' for k in allowed)})")
        out[key] = value
    return out


def _int(text: str, what: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise BreakpointError(f"{what} must be a number, not {text!r}") from None


def _choice(text: str, choices: tuple[str, ...], what: str) -> str:
    if text.lower() not in choices:
        raise BreakpointError(f"no {what} {text!r} ({', '.join(choices)})")
    return text.lower()


def _pass(args: list[str]) -> tuple[list[Listen], list[str]]:
    if len(args) != 1:
        raise BreakpointError("usage: break pass NAME")
    name = args[0]
    if name not in known_pass_names():
        near = difflib.get_close_matches(name, known_pass_names(), n=3)
        raise BreakpointError(f"no pass named {name!r}"
                              + (f" (did you mean {', '.join(near)}?)" if near else
                                 f" (GE's passes: {', '.join(known_pass_names())})"))
    return [Listen(PassBegin.__name__, keys.pass_name, name),
            Listen(NodeVisited.__name__, keys.pass_name, name, inner_pass_began)], args


def _node(args: list[str]) -> tuple[list[Listen], list[str]]:
    f = _filters(args, ("type",), positional="name")
    if not f:
        raise BreakpointError("usage: break node NAME | type=OP_TYPE")
    key, value = (keys.node, f["name"]) if "name" in f else (keys.op_type, f["type"])
    same_type = (lambda e, t: e.op_type == f["type"]) if "type" in f and "name" in f else None
    first_visit = (lambda e, t: t.node_began and (same_type is None or same_type(e, t)))
    spec = ([f["name"]] if "name" in f else []) + ([f"type={f['type']}"] if "type" in f else [])
    return [Listen(NodeVisited.__name__, key, value, first_visit),
            Listen(NodeExecuted.__name__, key, value, same_type)], spec


def _keyed(kind: str, f: dict[str, str], order: tuple[tuple[str, Callable, Callable], ...]
           ) -> Listen:
    """One listen keyed on the first filter present in ``order``; the others become its test."""
    present = [(name, key, norm(f[name])) for name, key, norm in order if name in f]
    if not present:
        return Listen(kind)
    (_, key, value), rest = present[0], present[1:]
    test = (lambda e, t: all(k(e) == v for _, k, v in rest)) if rest else None
    return Listen(kind, key, value, test)


def _distribute(args: list[str]) -> tuple[list[Listen], list[str]]:
    f = _filters(args, ("type", LOGICAL, RT, "node"))
    order = (("node", keys.node, str),
             (LOGICAL, keys.stream_id, lambda v: _int(v, LOGICAL)),
             (RT, keys.rt_stream_id, lambda v: _int(v, RT)),
             ("type", keys.task_type, lambda v: _choice(v, DISTRIBUTE_TYPES, "task type")))
    return [_keyed(TaskDistributed.__name__, f, order)], [f"{k}={v}" for k, v in f.items()]


def _sqe(args: list[str]) -> tuple[list[Listen], list[str]]:
    f = _filters(args, ("type", RT))
    order = ((RT, keys.task_stream, lambda v: _int(v, RT)),
             ("type", keys.task_type, lambda v: _choice(v, SQE_TYPES, "SQE type")))
    return [_keyed(SqeCompleted.__name__, f, order)], [f"{k}={v}" for k, v in f.items()]


def _label(args: list[str]) -> tuple[list[Listen], list[str]]:
    if len(args) > 1:
        raise BreakpointError("usage: break label [ID]")
    if not args:
        return [Listen(SqeCompleted.__name__,
                       test=lambda e, t: keys.label_set(e) is not None)], []
    return [Listen(SqeCompleted.__name__, keys.label_set, _int(args[0], "label id"))], args


def _wait(args: list[str]) -> tuple[list[Listen], list[str]]:
    if not args or args[0] not in ("event", "notify") or len(args) > 2:
        raise BreakpointError("usage: break wait event|notify [ID]")
    if args[0] == "event":
        kinds, key = (EventWaitBlocked, EventWaitSatisfied), keys.event_id
    else:
        kinds, key = (NotifyWaitBlocked, NotifyWaitSatisfied), keys.notify_id
    if len(args) == 1:
        return [Listen(k.__name__) for k in kinds], args
    ident = _int(args[1], f"{args[0]} id")
    return [Listen(k.__name__, key, ident) for k in kinds], args


def _fault(args: list[str]) -> tuple[list[Listen], list[str]]:
    if len(args) > 1:
        raise BreakpointError(f"usage: break fault [{'|'.join(FAULT_KINDS)}]")
    if not args:
        return [Listen(FaultFound.__name__)], []
    return [Listen(FaultFound.__name__, keys.fault, _choice(args[0], FAULT_KINDS, "fault"))], args


def _model(args: list[str]) -> tuple[list[Listen], list[str]]:
    if len(args) > 1:
        raise BreakpointError(f"usage: break model [{'|'.join(MODEL_EVENTS)}]")
    what = [_choice(args[0], tuple(MODEL_EVENTS), "model event")] if args else list(MODEL_EVENTS)
    return [Listen(MODEL_EVENTS[w]) for w in what], [w for w in what if args]


_PARSERS = {"pass": _pass, "node": _node, "distribute": _distribute, "sqe": _sqe,
            "label": _label, "wait": _wait, "fault": _fault, "model": _model}
