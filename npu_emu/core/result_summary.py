"""AI CPU kernels whose output size only the computation decides (GE's unknown-shape type 4,
DEPEND_COMPUTE: Unique, NonZero, NonMaxSuppression ...), and the copy that collects them.

Nobody can allocate such an output before the kernel runs, so the kernel is handed one small
*result summary* per output instead (aicpu::FWKAdapter::ResultSummary, four uint64 words:
shape_data_ptr, shape_data_size, raw_data_ptr, raw_data_size). It computes, allocates device
memory for each result and for its dims itself (the AI CPU has its own allocator), writes them
there, and fills the summary in. The host then synchronizes, reads the summaries, allocates
outputs of the real sizes, and launches a copy kernel (GE's MemCopy AI CPU op) that moves each
result into its output and releases the kernel's buffers.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from npu_emu.core.kernel_task import KernelTask, TensorArg, make_kernel_task
from npu_emu.scheduler.task import EFFECT, Task, TaskType

if TYPE_CHECKING:
    from npu_emu.core.device import Device
    from npu_emu.core.stream import Stream
    from npu_emu.scheduler.task_scheduler import TaskScheduler

SUMMARY_WORDS = 4                 # shape_data_ptr, shape_data_size, raw_data_ptr, raw_data_size
SUMMARY_DTYPE = np.dtype(np.uint64)


class SummaryKernelTask(KernelTask):
    """A kernel task whose output args are result summaries, not the results."""

    __slots__ = ()

    def _run(self, ts: TaskScheduler, args: list, summaries: list) -> None:
        results = self.fn(*args, **self.attrs)
        for summary, value in zip(summaries, results):
            summary[...] = _store(ts.device, np.ascontiguousarray(value))


def _store(device: Device, value: np.ndarray) -> np.ndarray:
    """The summary of ``value``, written to device blocks of its own."""
    dims = np.array(value.shape, np.int64)
    raw = device.malloc(max(value.nbytes, 1))
    shape = device.malloc(max(dims.nbytes, 1))
    memory = device.memory
    memory.view(raw, (value.nbytes,), np.uint8)[...] = value.reshape(-1).view(np.uint8)
    memory.view(shape, (dims.nbytes,), np.uint8)[...] = dims.view(np.uint8)
    return np.array([shape, dims.nbytes, raw, value.nbytes], SUMMARY_DTYPE)


def make_summary_kernel_task(device: Device, op_type: str, inputs: tuple[TensorArg | None, ...],
                             summaries: tuple[TensorArg, ...], attrs: dict[str, Any],
                             opset: int, unit: int | None) -> SummaryKernelTask:
    """The kernel of ``op_type`` writing one result summary per output into ``summaries``."""
    base = make_kernel_task(device, op_type, inputs, summaries, attrs, opset=opset, unit=unit)
    return SummaryKernelTask(base.op_type, base.opset, base.fn, base.attrs, base.inputs,
                             base.outputs, base.unit, base.duration)


def read_summary(device: Device, summary: TensorArg, dtype: str) -> tuple[TensorArg, int]:
    """(the result's raw data as a tensor arg of its real shape, its shape block's address),
    from a summary the kernel has written (the stream must be synchronized)."""
    words = device.memory.view(summary.addr, (SUMMARY_WORDS,), SUMMARY_DTYPE)
    shape_addr, shape_bytes, raw_addr, _ = (int(w) for w in words)
    dims = device.memory.view(shape_addr, (shape_bytes // 8,), np.int64)
    return TensorArg(raw_addr, tuple(int(d) for d in dims), np.dtype(dtype).name), shape_addr


class SummaryCopyTask(Task):
    """GE's MemCopy AI CPU kernel: each result from the kernel's buffer into its output, then
    the kernel's buffers (data and dims) back to the device."""

    __slots__ = ("moves", "released")

    def __init__(self, moves: Sequence[tuple[TensorArg, TensorArg]], released: Sequence[int],
                 duration: int, unit: int) -> None:
        super().__init__(TaskType.KERNEL_AICPU, "MemCopy", duration, kind=EFFECT, unit=unit,
                         reads=tuple(src.range for src, _ in moves),
                         writes=tuple(dst.range for _, dst in moves))
        self.moves, self.released = tuple(moves), tuple(released)

    def complete(self, ts: TaskScheduler, stream: Stream) -> None:
        device = ts.device
        for src, dst in self.moves:
            if src.nbytes:
                device.copy(dst.addr, src.addr, src.nbytes)
        for addr in self.released:
            device.free(addr)
