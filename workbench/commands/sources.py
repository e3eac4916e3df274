"""Where argument completions come from: the live target (node, pass, stream, event, notify and
label ids of the parked world), the session (breakpoint ids) and the file system."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from workbench.debugger.pass_names import known_pass_names
from workbench.debugger.views.graph_views import node_names as graph_node_names

if TYPE_CHECKING:
    from npu_emu.runtime import Runtime
    from workbench.commands.session import DebugSession


def node_names(session: DebugSession) -> list[str]:
    d = session.debugger
    return graph_node_names(d.state) if d is not None else []


def pass_names(session: DebugSession) -> list[str]:
    return list(known_pass_names())


def _runtime(session: DebugSession) -> Runtime | None:
    d = session.debugger
    return d.run.world.runtime if d is not None else None


def stream_ids(session: DebugSession) -> list[str]:
    rt = _runtime(session)
    return [str(s.id) for d in rt.devices.values() for s in d.scheduler.streams] if rt else []


def _task_ids(session: DebugSession, attr: str) -> list[str]:
    rt = _runtime(session)
    if rt is None:
        return []
    found = {getattr(t, attr) for d in rt.devices.values() for s in d.scheduler.streams
             for t in s.sq.entries if hasattr(t, attr)}
    return [str(i) for i in sorted(found)]


def event_ids(session: DebugSession) -> list[str]:
    return _task_ids(session, "event_id")


def notify_ids(session: DebugSession) -> list[str]:
    return _task_ids(session, "notify_id")


def label_ids(session: DebugSession) -> list[str]:
    rt = _runtime(session)
    return sorted({str(label.id) for m in rt.models for label in m.labels.labels}) if rt else []


def breakpoint_ids(session: DebugSession) -> list[str]:
    d = session.debugger
    return [str(i) for i in [*d.breakpoints, *d.watches]] if d is not None else []


def files(session: DebugSession, partial: str, suffixes: tuple[str, ...] = ()) -> list[str]:
    """Paths under the session's directory starting with ``partial`` (directories end in /)."""
    head, _ = os.path.split(partial)
    directory = session.base_dir / head
    if not directory.is_dir() or not session.access.may_read(directory):
        return []   # (a served tab lists no folder it may not open)
    out = []
    for entry in sorted(os.listdir(directory)):
        path = os.path.join(head, entry)
        if (directory / entry).is_dir():
            out.append(path + "/")
        elif not suffixes or entry.endswith(suffixes):
            out.append(path)
    return out
