"""ACL Graph capture (seed 003 §2.1): tasks launched on a capturing stream are recorded into a
model instead of running, so the model can then execute many times with no host launch cost.

- aclmdlRICaptureBegin(stream) opens a capture: a model whose head stream mirrors ``stream``.
- Cross-stream capture: an event recorded on a capturing stream becomes a model event; a stream
  that waits on it joins the capture (it gets a head stream of its own in the model). Before
  capture end, every joined stream must be joined back: its last captured task records an event
  that an already-joined stream waits on.
- Synchronizing a capturing stream is an error (ACL_ERROR_RT_STREAM_CAPTURED) that leaves the
  capture as it was; while a capture is open, querying a stream or an event, or synchronizing
  an event or the device, is an error and invalidates the capture.
- Task groups (aclmdlRICaptureTaskGrpBegin/End) mark captured tasks whose parameters can later be
  replaced: between TaskUpdateBegin(stream, group) and TaskUpdateEnd the stream's launches become
  the group's new tasks instead of running.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from npu_emu.base.errors import (ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                            ACL_ERROR_RT_STREAM_NOT_CAPTURED, ACL_ERROR_RT_STREAM_UNJOINED,
                            ACL_ERROR_STREAM_TASK_GROUP_STATUS, CaptureError)
from npu_emu.core.event import Event, EventRecordTask, EventWaitTask
from npu_emu.core.stream import ACL_MODEL_STREAM_FLAG_HEAD, Stream
from npu_emu.scheduler.task import Task

if TYPE_CHECKING:
    from npu_emu.feature.model import Model


class ModelBuilder(Protocol):
    """The runtime (npu_emu/runtime.py, the floor above) as a capture needs it: the maker of
    the model a capture records into."""

    def model_build_begin(self, auto_split: bool | None = None) -> Model: ...

ACL_MODEL_RI_CAPTURE_STATUS_NONE = 0
ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE = 1
ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED = 2


@dataclass(eq=False)
class CaptureSession:
    origin: Stream
    model: Model
    model_streams: dict[int, Stream] = field(default_factory=dict)  # user stream id -> model's
    events: dict[int, Event] = field(default_factory=dict)          # user event id -> model's
    group_start: dict[int, int] = field(default_factory=dict)       # user stream id -> #tasks
    captured: dict[int, list[Task]] = field(default_factory=dict)   # user stream id -> tasks
    invalidated: str = ""


@dataclass(eq=False)
class TaskGroup:
    """Captured tasks that a task update may replace, one for one and of the same type."""

    model: Model
    tasks: list[Task]

    @property
    def destroyed(self) -> bool:
        """A task group lives as long as its captured model."""
        return self.model.destroyed


class CaptureManager:
    def __init__(self, runtime: ModelBuilder) -> None:
        self.runtime = runtime
        self._sessions: dict[int, CaptureSession] = {}   # user stream id -> its capture
        self._updates: dict[int, tuple[TaskGroup, list[Task]]] = {}

    # -- capture -------------------------------------------------------------------------------
    def begin(self, stream: Stream) -> None:
        if stream.id in self._sessions:
            raise CaptureError(f"stream {stream.label} is already capturing")
        if stream.model is not None:
            raise CaptureError(f"stream {stream.label} is bound to model {stream.model.id}")
        stream.device.scheduler.drain(stream, waiter=f"begin capture on stream {stream.label}")
        model = self.runtime.model_build_begin()
        session = CaptureSession(stream, model)
        self._join(session, stream)

    def _join(self, session: CaptureSession, stream: Stream) -> None:
        mirror = stream.device.new_stream(None, stream.priority)
        session.model.bind_stream(mirror, ACL_MODEL_STREAM_FLAG_HEAD)
        session.model_streams[stream.id] = mirror
        session.captured[stream.id] = []
        self._sessions[stream.id] = session

    def end(self, stream: Stream) -> Model:
        session = self._sessions.get(stream.id)
        if session is None:
            raise CaptureError(f"stream {stream.label} is not capturing",
                               ACL_ERROR_RT_STREAM_NOT_CAPTURED)
        if session.origin is not stream:
            raise CaptureError(f"capture end on stream {stream.label}; the capture began on "
                               f"stream {session.origin.label}", 107036)
        self._close(session)
        if session.invalidated:
            session.model.destroy()
            raise CaptureError(f"the capture was invalidated: {session.invalidated}",
                               ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED)
        unjoined = self._unjoined(session)
        if unjoined:
            session.model.destroy()
            names = ", ".join(map(self.runtime.stream_name, unjoined))
            raise CaptureError(f"stream(s) {names} joined the capture "
                               f"but were never joined back to stream {stream.label} by an event",
                               ACL_ERROR_RT_STREAM_UNJOINED)
        model = session.model
        model.end_task(session.model_streams[stream.id])
        model.build_end()
        return model

    def _close(self, session: CaptureSession) -> None:
        for sid in session.model_streams:
            del self._sessions[sid]

    def _unjoined(self, session: CaptureSession) -> list[int]:
        joined = {session.origin.id}
        waited_by: dict[int, set[int]] = {}
        for sid, tasks in session.captured.items():
            for t in tasks:
                if isinstance(t, EventWaitTask):
                    waited_by.setdefault(t.event_id, set()).add(sid)
        changed = True
        while changed:
            changed = False
            for sid, tasks in session.captured.items():
                last = tasks[-1] if tasks else None
                if sid not in joined and isinstance(last, EventRecordTask) \
                        and waited_by.get(last.event_id, set()) & joined:
                    joined.add(sid)
                    changed = True
        return sorted(set(session.captured) - joined)

    def status(self, stream: Stream) -> tuple[int, Model | None]:
        session = self._sessions.get(stream.id)
        if session is None:
            return ACL_MODEL_RI_CAPTURE_STATUS_NONE, None
        state = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED if session.invalidated \
            else ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE
        return state, session.model

    def model_of(self, stream: Stream) -> Model | None:
        session = self._sessions.get(stream.id)
        return session.model if session else None

    def check_not_captured(self, stream: Stream) -> None:
        """A stream that is capturing cannot be synchronized: its tasks run only when the
        captured model does. The runtime refuses before anything happens, so the capture goes
        on (ApiErrorDecorator::StreamSynchronize, src/runtime/api/impl/api_error.cc:
        RT_ERROR_STREAM_CAPTURED, ACL_ERROR_RT_STREAM_CAPTURED 107027); a stream outside the
        capture synchronizes as ever."""
        if stream.id in self._sessions:
            raise CaptureError(f"Synchronizing a stream: stream (stream_id={stream.id}) during "
                               f"the capture stage is not supported")

    def check_not_capturing_any(self, what: str) -> None:
        if not self._sessions:
            return
        streams = sorted(self._sessions)
        for session in set(self._sessions.values()):
            session.invalidated = session.invalidated or f"tried to {what} while capturing"
        raise CaptureError(f"cannot {what} while stream(s) "
                           f"{', '.join(map(self.runtime.stream_name, streams))} "
                           f"are capturing; the capture is invalidated")

    # -- routing launches ----------------------------------------------------------------------
    def route(self, stream: Stream, task: Task) -> bool:
        """Take ``task`` if ``stream`` is capturing or updating a task group."""
        if not self._sessions and not self._updates:
            return False
        update = self._updates.get(stream.id)
        if update is not None:
            update[1].append(task)
            return True
        session = self._sessions.get(stream.id)
        if session is None:
            session = self._joining(task)
            if session is None:
                return False
            self._join(session, stream)
        mirror = session.model_streams[stream.id]
        task = self._translate(session, task)
        session.captured[stream.id].append(task)
        session.model.add_task(mirror, task)
        return True

    def _joining(self, task: Task) -> CaptureSession | None:
        if isinstance(task, EventWaitTask):
            for session in self._sessions.values():
                if task.event_id in session.events:
                    return session
        return None

    def _translate(self, session: CaptureSession, task: Task) -> Task:
        """User events become the model's own; the model's waits reset them as they pass."""
        cost = session.model.device.cost.launch_ns
        if isinstance(task, EventRecordTask):
            event = session.events.get(task.event_id)
            if event is None:
                event = session.events[task.event_id] = session.model.device.create_event()
            return EventRecordTask(event.id, cost)
        if isinstance(task, EventWaitTask):
            event = session.events.get(task.event_id)
            if event is None:
                raise CaptureError(f"captured wait on event {task.event_id}, which was not "
                                   f"recorded inside the capture", 107024)
            return EventWaitTask(event.id, cost, reset=True)
        return task

    # -- task groups ---------------------------------------------------------------------------
    def task_group_begin(self, stream: Stream) -> None:
        session = self._capturing(stream)
        if stream.id in session.group_start:
            raise CaptureError("task group already open", ACL_ERROR_STREAM_TASK_GROUP_STATUS)
        session.group_start[stream.id] = len(session.captured[stream.id])

    def task_group_end(self, stream: Stream) -> TaskGroup:
        session = self._capturing(stream)
        start = session.group_start.pop(stream.id, None)
        if start is None:
            raise CaptureError("no task group open", ACL_ERROR_STREAM_TASK_GROUP_STATUS)
        return TaskGroup(session.model, session.captured[stream.id][start:])

    def task_update_begin(self, stream: Stream, group: TaskGroup) -> None:
        if stream.id in self._sessions or stream.id in self._updates:
            raise CaptureError(f"stream {stream.label} is capturing or already updating",
                               ACL_ERROR_STREAM_TASK_GROUP_STATUS)
        self._updates[stream.id] = (group, [])

    def task_update_end(self, stream: Stream) -> None:
        group, new = self._updates.pop(stream.id, (None, None))
        if group is None:
            raise CaptureError("task update end without begin", ACL_ERROR_STREAM_TASK_GROUP_STATUS)
        if group.model.running:
            raise CaptureError(f"model {group.model.id} is running; update it between "
                               f"executions", ACL_ERROR_STREAM_TASK_GROUP_STATUS)
        if len(new) != len(group.tasks) or any(type(a) is not type(b) or a.unit != b.unit
                                                for a, b in zip(group.tasks, new)):
            raise CaptureError(f"a task update must launch {len(group.tasks)} tasks of the "
                               f"captured types; got {len(new)}",
                               ACL_ERROR_STREAM_TASK_GROUP_STATUS)
        for i, (old, task) in enumerate(zip(group.tasks, new)):
            task.task_id, task.stream, task.pos = old.task_id, old.stream, old.pos
            sq = old.stream.sq
            sq.entries[old.pos - sq.base] = task
            group.tasks[i] = task

    def _capturing(self, stream: Stream) -> CaptureSession:
        session = self._sessions.get(stream.id)
        if session is None:
            raise CaptureError(f"stream {stream.label} is not capturing",
                               ACL_ERROR_RT_STREAM_NOT_CAPTURED)
        return session
