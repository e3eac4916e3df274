"""How breakpoints and watches hear events: each listens to one kind, optionally keyed (the pass
name, the node, the stream id ...). Installed in a StopTable they are indexed by kind and then by
key value, so an event costs one lookup per key function its kind uses, not one test per
breakpoint (docs/architecture.md's measured numbers)."""
from __future__ import annotations

from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Callable, Hashable, Iterable

from npu_emu.base.trace import TraceEvent
from npu_emu.scheduler.task import TaskType
from workbench.debugger.granularity import UnitTest, stream_of
from workbench.debugger.outcomes import StopReason
from workbench.debugger.stop_table import StopTable
from workbench.debugger.tracker import Tracker

KeyFn = Callable[[TraceEvent], Hashable]
Action = Callable[[TraceEvent, list[StopReason]], None]


@dataclass(frozen=True)
class Listen:
    kind: str
    key: KeyFn | None = None
    value: Hashable = None
    test: UnitTest | None = None   # the rest of the filter, after the key matched


def install(entries: Iterable[tuple[Listen, Action]], table: StopTable, tracker: Tracker) -> None:
    kinds: dict[str, tuple[dict[KeyFn, dict[Hashable, list]], list]] = {}
    for listen, action in entries:
        keyed, unkeyed = kinds.setdefault(listen.kind, ({}, []))
        if listen.key is None:
            unkeyed.append((listen.test, action))
        else:
            keyed.setdefault(listen.key, {}).setdefault(listen.value, []).append(
                (listen.test, action))
    for kind, (keyed, unkeyed) in kinds.items():
        table.add(kind, _dispatcher(tuple(keyed.items()), tuple(unkeyed), tracker),
                  wants=None if unkeyed else _wanting(keyed))


def _dispatcher(keyed: tuple, unkeyed: tuple, tracker: Tracker) -> Callable:
    def check(e: TraceEvent, reasons: list[StopReason]) -> None:
        for key, by_value in keyed:
            for test, action in by_value.get(key(e), ()):
                if test is None or test(e, tracker):
                    action(e, reasons)
        for test, action in unkeyed:
            if test is None or test(e, tracker):
                action(e, reasons)
    return check


def _wanting(keyed: dict[KeyFn, dict[Hashable, list]]) -> Callable[[type], Callable | None]:
    """The dispatcher's test on an event's fields, for its class (StopTable.add's ``wants``):
    whether some listen's key matches, so the event is built for it. None where a key is
    computed from the event, not one of its fields."""
    def wanting(cls: type) -> Callable[..., bool] | None:
        names = [f.name for f in fields(cls)][1:]   # after the tick, as a receiver gets them
        if not all(_FIELD_OF.get(key) in names for key in keyed):
            return None
        matches = tuple((names.index(_FIELD_OF[key]), frozenset(by_value))
                        for key, by_value in keyed.items())

        def wants(*values: object) -> bool:
            for i, matching in matches:
                if values[i] in matching:
                    return True
            return False
        return wants
    return wanting


# -- key functions: one object each, so listens on the same key share one lookup ----------------
_FIELD_OF: dict[KeyFn, str] = {}   # a key that reads one field of the event -> the field


def _field(name: str) -> KeyFn:
    key = attrgetter(name)
    _FIELD_OF[key] = name
    return key


pass_name = _field("pass_name")
node = _field("node")
op_type = _field("op_type")
fault = _field("fault")
event_id = _field("event_id")
notify_id = _field("notify_id")
stream_id = _field("stream_id")
rt_stream_id = _field("rt_stream_id")
task_stream: KeyFn = stream_of


def task_type(e: TraceEvent) -> str:
    """An SQE's TS task type, or a distributed task's type, lower case (event_record)."""
    t = e.task.type if hasattr(e, "task") else getattr(e, "task_type", "")
    return (t.name if hasattr(t, "name") else str(t)).lower()


def label_set(e: TraceEvent) -> int | None:
    """The label an SQE sets, if it is a LabelSet."""
    label = getattr(e.task, "label", None)
    return label.id if label is not None and e.task.type == TaskType.LABEL_SET else None
