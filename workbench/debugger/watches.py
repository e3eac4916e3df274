"""Watchpoints: `watch node NAME anchors`, `watch node NAME attr KEY`, `watch node NAME input|output
I` (a tensor desc), `watch event ID`, `watch notify ID`, `watch rt_stream N` (a runtime stream:
GE's logical ones have no state). A watch re-reads its value from the parked world when an
event that can change it passes, and stops the target when the value changed, old -> new. A
watch set before its node exists takes the value the node appears with as its start, no change,
where that value says nothing of what is watched (a desc's first, an attribute still unset)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ge_core.graph.dump import Detail, format_attr, node_line
from ge_core.graph.events import AnchorLinked, AnchorUnlinked, AttrSet, DescUpdated
from ge_core.graph.ge_tensor import GeTensorDesc
from ge_core.graph.types import Format
from ge_core.passes.events import PassEnd
from ge_core.stage_events import StageEnd
from npu_emu.base.trace import TraceEvent
from npu_emu.scheduler.events import (EventRecorded, EventWaitBlocked, EventWaitSatisfied,
                                      HostSynchronized, NotifyRecorded, NotifyWaitBlocked,
                                      NotifyWaitSatisfied, SqeCompleted, SqeDispatched,
                                      SqeSubmitted, StreamActivated)
from npu_emu.scheduler.task import TaskType
from workbench.debugger import listen as keys
from workbench.debugger.listen import Action, Listen
from workbench.debugger.outcomes import StopReason
from workbench.debugger.stream_names import RT
from workbench.debugger.targets.program import PhaseEnd

if TYPE_CHECKING:
    from ge_core.graph import Node
    from npu_emu.runtime import Runtime
    from workbench.debugger.targets.program import RunState

Reader = Callable[["RunState | None", "Runtime"], object]   # the value, compared whole
UNSET = "<unset>"


class WatchError(ValueError):
    pass


def _never(value: object) -> bool:
    return False


def _always(value: object) -> bool:
    return True


def _unset(value: object) -> bool:
    return value == UNSET


def _as_text(old: object, new: object) -> tuple[str, str]:
    return str(old), str(new)


@dataclass(frozen=True)
class Reading:
    """How a kind of watch hears and reads its value, and what of a change it says."""
    listens: list[Listen]
    read: Reader
    # a value the watched node appearing gives it that is the watch's start, not a stop
    starts: Callable[[object], bool] = _never
    says: Callable[[object, object], tuple[str, str]] = _as_text   # old, new as a stop says


@dataclass
class Watch:
    id: int
    spec: str
    reading: Reading
    node: str | None = None   # the node a node watch reads
    seen: object = ""         # the value as last read
    enabled: bool = True
    hits: int = 0

    @property
    def value(self) -> str:
        return str(self.seen)

    def sync(self, state: RunState | None, runtime: Runtime) -> None:
        self.seen = self.reading.read(state, runtime)

    def entries(self, state_of: Callable[[], "RunState | None"], runtime: Runtime
                ) -> list[tuple[Listen, Action]]:
        reading = self.reading

        def action(e: TraceEvent, reasons: list[StopReason]) -> None:
            old, new = self.seen, reading.read(state_of(), runtime)
            if new == old:
                return
            self.seen = new
            # set before its node existed: the parse's end (or the pass that made the node)
            # is where it appears, which changes nothing the watch is about when its value
            # starts there (a stop only cost the user a `continue`)
            if self.node is not None and old == no_node(self.node) and reading.starts(new):
                return
            before, after = reading.says(old, new)
            reasons.append(StopReason("watch", f"watch {self.id} ({self.spec}): "
                                      f"{before} -> {after}", self.id, before, after))
        return [(listen, action) for listen in reading.listens]


def parse_watch(ident: int, words: list[str]) -> Watch:
    if words and words[0] == "stream":
        raise WatchError(f"watch {RT} N: a runtime stream (GE's logical streams have no state "
                         f"of their own to watch)")
    if not words or words[0] not in _PARSERS:
        raise WatchError(f"watch what? (node NAME anchors | node NAME attr KEY | node NAME "
                         f"input|output I | event ID | notify ID | {RT} N)")
    reading = _PARSERS[words[0]](words[1:])   # a bare `watch node` is refused here, with usage
    return Watch(ident, " ".join(words), reading, words[1] if words[0] == "node" else None)


def no_node(name: str) -> str:
    return f"<no node {name}>"


def _src_node(e: TraceEvent) -> str:
    return e.src.rpartition(":")[0]


def _dst_node(e: TraceEvent) -> str:
    return e.dst.rpartition(":")[0]


def _reset_event(e: TraceEvent) -> int | None:
    return e.task.event_id if e.task.type == TaskType.EVENT_RESET else None


def _node_watch(words: list[str]) -> Reading:
    if len(words) == 2 and words[1] == "anchors":
        name = words[0]
        listens = [Listen(k.__name__, key, name) for k in (AnchorLinked, AnchorUnlinked)
                   for key in (_src_node, _dst_node)]

        def read(state: RunState | None, runtime: Runtime) -> object:
            node = _node(state, name)
            return node_line(node, Detail.STRUCTURE) if node else no_node(name)
        starts, says = _never, _as_text
    elif len(words) == 3 and words[1] == "attr":
        name, attr = words[0], words[2]
        listens = [Listen(AttrSet.__name__, keys.node, name, lambda e, t: e.key == attr)]

        def read(state: RunState | None, runtime: Runtime) -> object:
            node = _node(state, name)
            if node is None:
                return no_node(name)
            return format_attr(node.op_desc.attrs[attr]) if attr in node.op_desc.attrs \
                else UNSET
        # an attribute the node is made with is news; one still unset is not
        starts, says = _unset, _as_text
    elif len(words) == 3 and words[1] in ("input", "output"):
        name, io = words[0], words[1]
        index = _index(words[2], f"watch node NAME {io} I: I is the {io}'s index, 0 or more, "
                                 f"not {words[2]!r}")
        listens = [Listen(DescUpdated.__name__, keys.node, name,
                          lambda e, t: e.index == index and e.io == io)]

        def read(state: RunState | None, runtime: Runtime) -> object:
            node = _node(state, name)
            if node is None:
                return no_node(name)
            descs = node.op_desc.input_descs if io == "input" else node.op_desc.output_descs
            return descs[index] if 0 <= index < len(descs) else f"<no {io} {index}>"
        # a node has every desc from its making: the one it appears with is where the desc
        # starts (the parser's, a pass's), as a data breakpoint's value is where it is set
        starts, says = _always, _say_descs
    else:
        raise WatchError("usage: watch node NAME anchors | watch node NAME attr KEY | "
                         "watch node NAME input|output I")
    # A node that appears or goes (parse, a fusion, the partition's copies) is noticed where
    # the phase, stage or pass that did it ends: while a pass or the parser runs, the graphs
    # it builds are not yet where the debugger can see them.
    listens += [Listen(k.__name__) for k in (PassEnd, StageEnd, PhaseEnd)]
    return Reading(listens, read, starts, says)


# the fields of a desc its text (dtype and shape, or absent) leaves out
_UNSHOWN = ("format", "origin_format", "origin_shape")


def _say_descs(old: object, new: object) -> tuple[str, str]:
    """Each desc as it prints, with each field it leaves out that differs, as field=value: a
    change of layout alone (NCHW -> NC1HWC0) reads `f32[1,3,8,8] format=NCHW -> f32[1,3,8,8]
    format=NC1HWC0`, not `f32[1,3,8,8] -> f32[1,3,8,8]`."""
    if not (isinstance(old, GeTensorDesc) and isinstance(new, GeTensorDesc)):
        return str(old), str(new)
    differ = [f for f in _UNSHOWN if getattr(old, f) != getattr(new, f)]
    return (" ".join([str(old), *(f"{f}={_field_text(getattr(old, f))}" for f in differ)]),
            " ".join([str(new), *(f"{f}={_field_text(getattr(new, f))}" for f in differ)]))


def _field_text(value: object) -> str:
    if value is None:
        return "unset"
    return value.name.removeprefix("FORMAT_") if isinstance(value, Format) else str(value)


def _node(state: RunState | None, name: str) -> Node | None:
    return state.find_node(name) if state is not None else None


def _number(words: list[str], what: str) -> int:
    if len(words) != 1:
        raise WatchError(f"usage: watch {what} ID")
    return _index(words[0], f"{what} id must be a number, 0 or more, not {words[0]!r}")


def _index(word: str, error: str) -> int:
    """An id or index as typed: ASCII digits, at most nine (int() also takes -1, which would
    read the last of a list, 1_0, +0, other scripts' digits, and thousands of digits, past
    which it raises)."""
    if not (word.isascii() and word.isdecimal() and len(word) <= 9):
        raise WatchError(error)
    return int(word)


def _event_watch(words: list[str]) -> Reading:
    ident = _number(words, "event")
    listens = [Listen(k.__name__, keys.event_id, ident)
               for k in (EventRecorded, EventWaitSatisfied)]
    listens.append(Listen(SqeCompleted.__name__, _reset_event, ident))

    def read(state: RunState | None, runtime: Runtime) -> str:
        for device in runtime.devices.values():
            if ident < len(device.event_flags) and device.event_flags[ident]:
                return f"recorded at {device.event_times.get(ident, 0)} ns"
        return "not recorded" if runtime.devices else "<no device>"
    return Reading(listens, read)


def _notify_watch(words: list[str]) -> Reading:
    ident = _number(words, "notify")
    listens = [Listen(k.__name__, keys.notify_id, ident)
               for k in (NotifyRecorded, NotifyWaitSatisfied)]

    def read(state: RunState | None, runtime: Runtime) -> str:
        for device in runtime.devices.values():
            if ident < len(device.notify_flags):
                flag = "set" if device.notify_flags[ident] else "clear"
                return f"{flag}, recorded {device.notify_counts.get(ident, 0)} times"
        return "<no device>"
    return Reading(listens, read)


def _stream_watch(words: list[str]) -> Reading:
    ident = _number(words, RT)
    listens = [Listen(k.__name__, keys.task_stream, ident)
               for k in (SqeSubmitted, SqeDispatched, SqeCompleted)]
    listens += [Listen(k.__name__, keys.stream_id, ident)
                for k in (StreamActivated, EventWaitBlocked, EventWaitSatisfied,
                          NotifyWaitBlocked, NotifyWaitSatisfied, HostSynchronized)]

    def read(state: RunState | None, runtime: Runtime) -> str:
        for device in runtime.devices.values():
            for s in device.scheduler.streams:
                if s.id == ident:
                    text = f"{s.state.name.lower()}, SQE {s.sq.head_pos} of {s.sq.tail_pos}"
                    return text + (f", waiting at {s.waiting}" if s.waiting else "")
        return f"<no {RT} {ident}>"
    return Reading(listens, read)


_PARSERS = {"node": _node_watch, "event": _event_watch, "notify": _notify_watch,
            RT: _stream_watch}
