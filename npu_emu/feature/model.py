"""Model (aclmdlRI): a container of bound streams whose SQEs stay resident and run many times.

Life cycle as seed 002 describes it: BuildBegin -> BindStream (HEAD or DEFAULT) -> launch tasks
on the bound streams -> EndTask (an EndGraph task that records the model's end-of-graph notify)
-> BuildEnd (LoadComplete) -> Execute / ExecuteAsync any number of times -> Destroy.

Execute puts a ModelExecute task on the caller's stream; when it retires the TS activates the
head streams, and the caller's stream then waits on the end-of-graph notify (a synchronous
execute uses the model's own stream and the host waits on it). Streams with the DEFAULT flag
stay inactive until a StreamActive, StreamSwitch or label jump activates them.

With AutoSplit (auto_split.py) SQEs are kept in host buffers and sent at LoadComplete; without
it they go straight into the bound stream's fixed-depth SQ, which fails when full.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from npu_emu.base.errors import (ACL_ERROR_RT_MODEL_ABORT_NORMAL, AclError, InvalidParamError,
                                 ModelStateError, StreamModelError, StreamTaskFullError,
                                 TaskFaultError)
from npu_emu.base.stream_name import rt_stream_name
from npu_emu.base.trace import TraceEvent
from npu_emu.core.label import Label, LabelIdAllocator, LabelSetTask
from npu_emu.core.notify import NotifyRecordTask, NotifyWaitTask
from npu_emu.core.stream import ACL_MODEL_STREAM_FLAG_DEFAULT, ACL_MODEL_STREAM_FLAG_HEAD, Stream
from npu_emu.feature.auto_split import AutoSplitSqContext
from npu_emu.scheduler.events import StreamState
from npu_emu.scheduler.task import EFFECT, Task, TaskType

if TYPE_CHECKING:
    from npu_emu.core.device import Device
    from npu_emu.scheduler.task_scheduler import TaskScheduler


class ModelState(Enum):
    BUILDING = "building"
    LOADED = "loaded"
    DESTROYED = "destroyed"


@dataclass(frozen=True, slots=True)
class ModelLoaded(TraceEvent):
    model_id: int
    streams: int
    sqes: int


@dataclass(frozen=True, slots=True)
class ModelExecuted(TraceEvent):
    model_id: int
    stream_id: int
    time_ns: int


@dataclass(frozen=True, slots=True)
class ModelFinished(TraceEvent):
    model_id: int
    time_ns: int


@dataclass(frozen=True, slots=True)
class ModelAborted(TraceEvent):
    model_id: int
    time_ns: int


class Model:
    def __init__(self, device: Device, model_id: int, auto_split: bool) -> None:
        cfg = device.runtime.config
        self.device = device
        self.id = model_id
        self.name = f"model{model_id}"
        self.state = ModelState.BUILDING
        self.streams: list[Stream] = []        # bound streams, AutoSplit slaves included
        self.head_streams: list[Stream] = []
        self.labels = LabelIdAllocator(self)
        self.end_notify = device.create_notify(f"end of model {model_id}")
        self.has_end_graph = False
        self.running = False
        self.exec_stream: Stream | None = None
        self.auto_split = AutoSplitSqContext(self, cfg.host_sq_max_count) if auto_split else None
        self._own_stream: Stream | None = None

    def __repr__(self) -> str:
        return f"Model({self.id}, {self.name!r}, {self.state.value})"

    @property
    def destroyed(self) -> bool:
        return self.state is ModelState.DESTROYED

    def set_name(self, name: str) -> None:
        self.name = name

    def _require(self, state: ModelState, what: str) -> None:
        if self.state is not state:
            raise ModelStateError(f"{what}: model {self.id} is {self.state.value}, "
                                  f"not {state.value}")

    # -- building ------------------------------------------------------------------------------
    def bind_stream(self, stream: Stream, flag: int = ACL_MODEL_STREAM_FLAG_DEFAULT) -> None:
        self._require(ModelState.BUILDING, "bind stream")
        if flag not in (ACL_MODEL_STREAM_FLAG_HEAD, ACL_MODEL_STREAM_FLAG_DEFAULT):
            raise InvalidParamError(f"stream flag {flag:#x}")
        if stream.model is not None:
            raise StreamModelError(f"stream {stream.label} is already bound to model "
                                   f"{stream.model.id}")
        if stream.context is not None and stream is stream.context.default_stream:
            raise StreamModelError("the default stream cannot be bound to a model")
        if stream.pending or stream.state == StreamState.RUNNING:
            raise StreamModelError(f"stream {stream.label} still has {stream.pending} tasks")
        stream.model = self
        stream.persistent = True
        stream.state = StreamState.INACTIVE
        stream.flag = flag
        stream.sq.clear()
        self.streams.append(stream)
        if flag == ACL_MODEL_STREAM_FLAG_HEAD:
            self.head_streams.append(stream)
        if self.auto_split is not None:
            self.auto_split.bind(stream)   # software only until LoadComplete
        else:
            self._maintain([stream], "bind")

    def unbind_stream(self, stream: Stream) -> None:
        if stream.model is not self:
            raise StreamModelError(f"stream {stream.label} is not bound to model {self.id}")
        # an execution queued but not yet started runs the stream too: clearing its SQ under an
        # SQE the TS holds in flight left the scheduler reading past the queue
        if self.running or stream.pending or stream.state == StreamState.RUNNING:
            raise ModelStateError(f"unbind stream {stream.label} while model {self.id} runs")
        if self.state is ModelState.LOADED or self.auto_split is None:
            self._maintain([stream], "unbind")
        self._release(stream)
        self.streams.remove(stream)
        if stream in self.head_streams:
            self.head_streams.remove(stream)

    def _release(self, stream: Stream) -> None:
        stream.model = None
        stream.persistent = False
        stream.host_buffer = None
        stream.slave = None
        stream.sq.clear()
        stream.state = StreamState.IDLE
        stream.flag = ACL_MODEL_STREAM_FLAG_DEFAULT

    def _maintain(self, streams: list[Stream], op: str) -> None:
        """ModelMaintaince SQEs on the device's control stream: the hardware learns of
        (un)bindings through the TS, and the host waits for the CQE."""
        ctrl = self.device.control_stream()
        for stream in streams:
            ctrl.device.submit(ctrl, Task(TaskType.MODEL_MAINTAINCE,
                                          f"ModelMaintaince({op} {rt_stream_name(stream.id)} "
                                          f"to m{self.id})",
                                          self.device.cost.launch_ns))
        self.device.scheduler.drain(ctrl, waiter=f"{op} streams of model {self.id}")

    def create_label(self) -> Label:
        self._require(ModelState.BUILDING, "create label")
        return self.labels.allocate()

    def add_task(self, stream: Stream, task: Task) -> None:
        """A task launched on a bound stream while the model is being built."""
        if self.state is not ModelState.BUILDING:
            raise ModelStateError(f"stream {stream.label} belongs to {self.state.value} model "
                                  f"{self.id}: no more tasks can be launched on it")
        if self.auto_split is not None:
            self.auto_split.append(stream, task)
        else:
            if len(stream.sq.entries) >= stream.sq.depth:
                raise StreamTaskFullError(
                    f"the SQ of stream {stream.label} is full ({stream.sq.depth} SQEs) while "
                    f"building model {self.id}; without AutoSplit a model stream holds at most "
                    "its SQ depth")
            self.device.enqueue(stream, task)
        if isinstance(task, LabelSetTask):
            task.label.stream, task.label.pos = task.stream, task.pos

    def end_task(self, stream: Stream) -> Task:
        """aclmdlRIEndTask: the EndGraph task, which records the end-of-graph notify."""
        if stream.model is not self:
            raise StreamModelError(f"end task on stream {stream.label}, not bound to model "
                                   f"{self.id}")
        task = stream.device.submit(stream, EndGraphTask(self, self.device.cost.launch_ns))
        self.has_end_graph = True
        return task

    def build_end(self) -> None:
        """aclmdlRIBuildEnd: LoadComplete."""
        self._require(ModelState.BUILDING, "build end")
        if self.auto_split is not None:
            self.auto_split.load_complete()
            self._maintain(self.streams, "bind")
        self.state = ModelState.LOADED
        self.device.runtime.bus.emit(ModelLoaded, self.id, len(self.streams),
                                     sum(len(s.sq.entries) for s in self.streams))

    # -- running -------------------------------------------------------------------------------
    def execute_async(self, stream: Stream) -> None:
        self._require(ModelState.LOADED, "execute")
        if not self.has_end_graph:
            raise ModelStateError("end graph must be called before execution "
                                  f"(aclmdlRIEndTask on a stream of model {self.id})")
        if not self.head_streams:
            raise ModelStateError(f"model {self.id} has no head stream to start from")
        if stream.model is not None:
            raise StreamModelError(f"model {self.id} executed on stream {stream.label}, which is "
                                   f"bound to model {stream.model.id}")
        cost = self.device.cost.launch_ns
        stream.device.submit(stream, ModelExecuteTask(self, cost))
        # the runtime's NtyWait(endGraphNotify_, stm) after the execute task (Model::ExecuteSync,
        # src/runtime/feature/model/model.cc): a NOTIFY_WAIT task, named for its notify
        stream.device.submit(stream, NotifyWaitTask(self.end_notify.id, cost,
                                                    f"NotifyWait(endGraph m{self.id})"))

    def execute(self, timeout_ms: int = -1) -> int:
        """aclmdlRIExecute (rtModelExecuteSync): run on the model's own stream and wait for the
        end-of-graph notify. Returns 0, 507023 (aborted) or 507046 (timed out; the model is
        aborted)."""
        stream = self.own_stream()
        self.execute_async(stream)
        return self.device.synchronize_stream(stream, timeout_ms)

    def own_stream(self) -> Stream:
        """The stream a synchronous execution runs on: the runtime's, no context's, made on
        first use (Model::ExecuteSync's GetExecuteStream, src/runtime/feature/model/model.cc)."""
        if self._own_stream is None:
            self._own_stream = self.device.new_stream(None)
        return self._own_stream

    def abort(self) -> None:
        """aclmdlRIAbort: stop the running execution; its waiter finishes with 507023."""
        if not self.running:
            return
        ts = self.device.scheduler
        ts.abort_streams(self.streams)
        self.running = False
        waiter = self.exec_stream
        if waiter.error is None:
            waiter.error = AclError(f"model {self.id} aborted", ACL_ERROR_RT_MODEL_ABORT_NORMAL)
        ts.record_notify(self.end_notify.id, None)
        self.device.runtime.bus.emit(ModelAborted, self.id, ts.now)

    def destroy(self) -> None:
        """aclmdlRIDestroy: as the runtime's ~Model unbinds each stream, the TS hears of it by a
        ModelMaintaince SQE (MMT_STREAM_DEL) per bound stream (a binding AutoSplit still holds
        in software only never reached the TS)."""
        if self.state is ModelState.DESTROYED:
            raise ModelStateError(f"model {self.id} destroyed twice")
        if self.streams and (self.state is ModelState.LOADED or self.auto_split is None):
            self._maintain(self.streams, "unbind")
        # after the unbind: the TS ran on while the host waited for it, and may have started
        # an execution queued on another stream; its in-flight SQEs go with the model
        self.abort()
        for stream in self.streams:
            self._release(stream)
        self.streams.clear()
        self.head_streams.clear()
        self.labels.release()
        self.state = ModelState.DESTROYED
        self.device.runtime.models.remove(self)


class ModelExecuteTask(Task):
    __slots__ = ("model",)

    def __init__(self, model: Model, duration: int) -> None:
        super().__init__(TaskType.MODEL_EXECUTE, f"ModelExecute(m{model.id})", duration,
                         kind=EFFECT)
        self.model = model

    def complete(self, ts: TaskScheduler, stream: Stream) -> None:
        model = self.model
        if model.destroyed:   # unloaded while this execution waited in its stream
            raise TaskFaultError(f"model {model.id} was destroyed before this execution began")
        if model.running:
            raise TaskFaultError(f"model {model.id} executed while its last execution runs")
        model.running = True
        model.exec_stream = stream
        ts.bus.emit(ModelExecuted, model.id, stream.id, ts.now)
        for head in model.head_streams:
            ts.activate(head, 0, stream)


class EndGraphTask(NotifyRecordTask):
    __slots__ = ("model",)

    def __init__(self, model: Model, duration: int) -> None:
        super().__init__(model.end_notify.id, duration, f"EndGraph(m{model.id})",
                         TaskType.MODEL_END_GRAPH)
        self.model = model

    def complete(self, ts: TaskScheduler, stream: Stream) -> None:
        self.model.running = False
        ts.bus.emit(ModelFinished, self.model.id, ts.now)
        ts.record_notify(self.notify_id, stream)
