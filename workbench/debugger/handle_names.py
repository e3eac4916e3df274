"""Streams and events by the host program's names: the variable a program holds a handle in
(`producer`, `y_ready`) is the name a user thinks in, so the debugger shows it beside the
runtime's id in `info streams`, `info events`, fault chains and race reports:
`producer (stream rt1)`. The name is taken from the frame that created the handle, the first
time the program is seen again after the create call (its next line, or its next facade call
when no line hook runs), by looking for the new handle among that frame's variables."""
from __future__ import annotations

import re
from types import FrameType

from npu_emu.core.event import Event
from npu_emu.runtime import Runtime
from npu_emu.core.stream import Stream
from workbench.debugger.stream_names import RT, stream_phrase

CREATORS = frozenset({"acl.rt.create_stream", "acl.rt.create_stream_with_config",
                      "acl.rt.create_event"})
# a stream as the faces name it: rt_stream 1, stream 1, stream rt1, stream s0/rt1, rt1, s0/rt1
_STREAM = re.compile(rf"\b(?:{RT} |stream (?:s\d+/)?(?:rt)?|(?:s\d+/)?rt)(\d+)\b")
_EVENT = re.compile(r"\bevent (\d+)")


class HandleNames:
    def __init__(self) -> None:
        self.streams: dict[int, str] = {}   # rt stream id -> the program's name for it
        self.events: dict[int, str] = {}    # event id -> ...
        self.pending = False                # a create call was made: look for its handle

    def learn(self, frame: FrameType | None, runtime: Runtime) -> None:
        """Name each stream or event handle in ``frame``'s variables that has no name yet.
        A handle left packed in its (handle, ret) tuple is still the program's name for it."""
        self.pending = False
        if frame is None:
            return
        for name, value in list(frame.f_locals.items()):
            if isinstance(value, tuple) and len(value) == 2:
                value = value[0]
            if not isinstance(value, int) or isinstance(value, bool):
                continue
            obj = runtime.handles.get(value)
            if isinstance(obj, Stream):
                self.streams.setdefault(obj.id, name)
            elif isinstance(obj, Event):
                self.events.setdefault(obj.id, name)

    def stream(self, ident: int) -> str:
        return self.streams.get(ident, "")

    def event(self, ident: int) -> str:
        return self.events.get(ident, "")

    def text(self, message: str) -> str:
        """``message`` (a fault chain, a race report) with each named stream and event as
        `name (stream rtN)` (as the message names it), `name (event N)`."""
        def stream(m: re.Match) -> str:
            name = self.streams.get(int(m[1]))
            if not name:
                return m[0]
            return f"{name} ({m[0]})" if "rt" in m[0] else stream_phrase(int(m[1]), self.streams)

        def event(m: re.Match) -> str:
            name = self.events.get(int(m[1]))
            return f"{name} (event {m[1]})" if name else m[0]
        return _EVENT.sub(event, _STREAM.sub(stream, message))
