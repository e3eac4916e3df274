"""The two kinds of stream, named apart wherever the debugger shows or takes one:

    logical_stream   GE's stream id, as stream allocation numbered it: a node's stream_id
                     attribute, a TaskDef's stream, the OM's streams, a DistributeTask's stream
    rt_stream        the runtime's stream (rtStream_t), the one SQEs are queued and run on; at
                     load DavinciModel binds each logical stream to one

Trace events keep their field names (the trace hash rests on them); in them ``stream_id`` is the
runtime's stream except where GE's own id is meant. What a user reads of an event (`event:`,
`where`) and names in a condition goes through here, so one word always means one kind.
"""
from __future__ import annotations

from dataclasses import fields
from functools import cache
from typing import Any, Mapping

from ge_core.events import TaskDistributed
from ge_core.stream_label import stream_label as ge_stream_label
from npu_emu.base.stream_name import rt_stream_name
from npu_emu.base.trace import TraceEvent

LOGICAL = "logical_stream"
RT = "rt_stream"


def stream_label(rt_id: int, logical: Mapping[int, int] | None = None) -> str:
    """One name for a stream wherever a face shows one (ge_core/stream_label.py):
    ``s0/rt1`` for the runtime's stream 1 that GE bound its logical stream 0 to, ``rt1`` for a
    stream GE did not make (a host program's, one not bound yet); ``logical``: rt stream id ->
    the logical stream bound to it."""
    return ge_stream_label(rt_id, logical.get(rt_id) if logical else None)


def stream_phrase(stream: int, names: Mapping[int, str] | None = None) -> str:
    """An rt stream in a sentence, by a host program's variable for it where it has one, as
    its faults name it: ``consumer (stream rt3)``, ``stream rt3``."""
    name = names.get(stream) if names else None
    return f"{name} (stream {rt_stream_name(stream)})" if name else \
        f"stream {rt_stream_name(stream)}"


def named_stream(stream: int, logical: dict[int, int] | None = None,
                 names: dict[int, str] | None = None, width: int = 0) -> str:
    """An rt stream as the device pane's column names it: a host program's variable for it,
    then GE's pair or the runtime's id (``producer rt1``, ``s0/rt1``). Within ``width``, the
    variable is what is cut: two streams whose names begin alike stay two (``compute… rt2``,
    ``compute… rt3`` in 12 columns)."""
    label = stream_label(stream, logical)
    name = names.get(stream) if names else None
    if name and width and len(name) + 1 + len(label) > width:
        room = width - len(label) - 1
        name = name[:room - 1] + "…" if room > 1 else ""
    return f"{name} {label}" if name else label


# By event class name: its fields that name a stream, as the user sees them.
_EVENT_FIELDS = {TaskDistributed.__name__: {"stream_id": LOGICAL, "rt_stream_id": RT}}
_DEFAULT = {"stream_id": RT}


@cache   # per event class: conditions ask on every event they test
def shown_names(cls: type) -> dict[str, str]:
    """Field name -> the name a user sees, for the fields of an event class (tick left out)."""
    renamed = _EVENT_FIELDS.get(cls.__name__, _DEFAULT)
    return {f.name: renamed.get(f.name, f.name) for f in fields(cls)[1:]}


def event_fields(event: TraceEvent) -> list[tuple[str, Any]]:
    return [(shown, getattr(event, name)) for name, shown in shown_names(type(event)).items()]


def shown_value(name: str, value: Any) -> Any:
    """A device address in hex, as every other address is shown (a condition still compares
    the number: ``if addr == 0x100000c00``)."""
    if isinstance(value, int) and not isinstance(value, bool) and (
            name == "addr" or name.endswith("_addr")):
        return f"{value:#x}"
    return value


def event_text(event: TraceEvent) -> str:
    """The event as TraceEvent.describe() says it, without its tick, in the user's names."""
    body = " ".join(f"{name}={shown_value(name, value)}" for name, value in event_fields(event))
    return f"{event.kind} {body}".rstrip()
