"""AutoSplit (seed 002, §3.4): a model stream's SQEs are kept in a host buffer instead of the
device SQ, so a stream is not limited by SQ depth. Only chips with the persistent-stream
unlimited-depth feature do it (soc.py: the 950 class). When a stream's count plus the SQE to add,
CAPTURE_TASK_RESERVED_NUM and the chip's expandStreamRsvTaskNum reaches HOST_SQ_MAX_COUNT
(task_david.cc's TryCreateAutoSplitSlaveStream), a slave stream is created; the full stream
ends with a StreamActive that hands control to the slave, and later SQEs go to the slave. At
LoadComplete every stream (slaves included) gets its SQ, the buffers are sent in one batch
(SqSwitchStreamBatch + SendSqe), and the bindings reach the hardware (EnterBindStream)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from npu_emu.device import SqeSubmitted
from npu_emu.stream import Stream, StreamActiveTask, StreamState
from npu_emu.task import Task
from npu_emu.trace import TraceEvent

if TYPE_CHECKING:
    from npu_emu.model import Model


@dataclass(frozen=True, slots=True)
class SlaveStreamCreated(TraceEvent):
    model_id: int
    master_stream: int
    slave_stream: int
    count: int


class AutoSplitSqContext:
    """Per model: the tail stream of each bound stream's chain and its SQE count."""

    def __init__(self, model: Model, max_count: int) -> None:
        self.model = model
        self.max_count = max_count
        self._tail: dict[int, Stream] = {}   # bound stream id -> the stream now receiving SQEs

    def bind(self, stream: Stream) -> None:
        stream.host_buffer = []
        self._tail[stream.id] = stream

    def append(self, stream: Stream, task: Task) -> None:
        tail = self._tail[stream.id]
        soc = self.model.device.runtime.config.soc
        if soc.auto_split_full(len(tail.host_buffer), 1, self.max_count):
            tail = self._split(stream, tail)
        tail.device.place(tail, task, tail.host_buffer)

    def _split(self, master: Stream, tail: Stream) -> Stream:
        device = tail.device
        slave = device.new_stream(None, tail.priority, persistent=True)
        slave.model = self.model
        slave.state = StreamState.INACTIVE
        slave.host_buffer = []
        self.model.streams.append(slave)
        device.place(tail, StreamActiveTask(slave, device.cost.launch_ns), tail.host_buffer)
        tail.slave = slave
        self._tail[master.id] = slave
        device.runtime.bus.emit(SlaveStreamCreated, self.model.id, master.id, slave.id,
                                len(tail.host_buffer))
        return slave

    def load_complete(self) -> None:
        bus = self.model.device.runtime.bus
        for stream in self.model.streams:
            sq = stream.sq
            sq.entries = stream.host_buffer
            stream.host_buffer = None
            sq.depth = max(sq.depth, self.max_count)   # the SQ allocated at LoadComplete
            for task in sq.entries:
                bus.emit(SqeSubmitted, task)
