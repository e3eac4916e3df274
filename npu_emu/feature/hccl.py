"""HCCL collectives as device tasks on the HCCL link. The emulator has one rank per
communicator, so a collective's data result is that of a group of one (AllReduce, Broadcast and
AllGather copy send to recv); its cost is the link's latency plus bytes over bandwidth."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from npu_emu.base.errors import InvalidParamError
from npu_emu.scheduler.cost_model import Unit
from npu_emu.scheduler.task import EFFECT, Task, TaskType

if TYPE_CHECKING:
    from npu_emu.core.device import Device
    from npu_emu.core.stream import Stream
    from npu_emu.scheduler.task_scheduler import TaskScheduler

COLLECTIVES = ("AllReduce", "Broadcast", "AllGather")


class HcclTask(Task):
    __slots__ = ("op", "send", "recv", "nbytes")

    def __init__(self, op: str, send: int, recv: int, nbytes: int, duration: int) -> None:
        super().__init__(TaskType.CCU_LAUNCH, f"Hccl{op}", duration, kind=EFFECT,
                         unit=Unit.HCCL, reads=((send, nbytes),), writes=((recv, nbytes),))
        self.op, self.send, self.recv, self.nbytes = op, send, recv, nbytes

    def complete(self, ts: TaskScheduler, stream: Stream) -> None:
        ts.device.copy(self.recv, self.send, self.nbytes)


def make_hccl_task(device: Device, op: str, send: int, recv: int, count: int,
                   dtype: Any) -> HcclTask:
    if op not in COLLECTIVES:
        raise InvalidParamError(f"HCCL op {op!r}; known: {', '.join(COLLECTIVES)}")
    nbytes = count * np.dtype(dtype).itemsize
    return HcclTask(op, send, recv, nbytes, device.cost.hccl_ns(nbytes))


def hccl_launch(stream: Stream, op: str, send: int, recv: int, count: int, dtype: Any) -> Task:
    return stream.device.submit(stream, make_hccl_task(stream.device, op, send, recv, count,
                                                       dtype))
