"""Kernel tasks on the device: a kernel name resolved to a numpy kernel, launched with an args
table of device addresses. At retirement the kernel runs on numpy views of device memory at those
addresses and writes its outputs there, so a wrong address or a missing wait really corrupts.

Names resolve first in the runtime's own table (``KernelTable.register``: a lesson's custom
kernel), then in ``npu_emu.op_impl`` by op type and opset.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from npu_emu.base.errors import InvalidParamError, KernelLookupError, TaskFaultError
from npu_emu.op_impl import UnknownKernelError, get_kernel
from npu_emu.scheduler.cost_model import Unit, default_unit
from npu_emu.scheduler.task import EFFECT, PLAIN, Task, TaskType

if TYPE_CHECKING:
    from npu_emu.core.links import DeviceLink
    from npu_emu.driver.memory import DeviceMemory
    from npu_emu.scheduler.protocols import SchedStream
    from npu_emu.scheduler.task_scheduler import TaskScheduler

KernelFn = Callable[..., tuple[np.ndarray, ...]]

# DVPP work has no TS kernel type of its own (its SQEs are media types); it is shown as an
# AI Core kernel routed to the DVPP unit.
_TYPE_OF_UNIT = {Unit.AI_CORE: TaskType.KERNEL_AICORE, Unit.AI_VECTOR: TaskType.KERNEL_AIVEC,
                 Unit.AI_CPU: TaskType.KERNEL_AICPU, Unit.DVPP: TaskType.KERNEL_AICORE}


@dataclass(frozen=True, slots=True)
class TensorArg:
    """One entry of a kernel's args table: where a tensor lives and what it looks like."""

    addr: int
    shape: tuple[int, ...]
    dtype: str

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * np.dtype(self.dtype).itemsize

    @property
    def range(self) -> tuple[int, int]:
        return (self.addr, self.nbytes)


def tensor_arg(addr: int, shape: Any, dtype: Any) -> TensorArg:
    """An args-table entry; a negative dim or a dtype with no bytes on the device (object,
    string, an unknown name) is refused at launch, before any view of memory is made."""
    dims = tuple(int(d) for d in shape)
    if any(d < 0 for d in dims):
        raise InvalidParamError(f"kernel argument shape {list(dims)} has a negative dim")
    try:
        if dtype is None:   # numpy would take it for float64
            raise TypeError
        dt = np.dtype(dtype)
    except (TypeError, ValueError):
        raise InvalidParamError(f"kernel argument dtype {dtype!r} is not a numpy dtype") from None
    if dt.kind not in "biufc" and dt.type.__module__ != "ml_dtypes":
        raise InvalidParamError(f"kernel argument dtype {dt} has no device representation")
    if math.prod(dims) * dt.itemsize >= 1 << 64:   # no device address range holds it
        raise InvalidParamError(f"a {dt} kernel argument of {len(dims)} dims needs more bytes "
                                f"than a device address range holds")
    return TensorArg(int(addr), dims, dt.name)


class KernelTable:
    """Kernels registered by name with the runtime (KernelRegister / KernelLookup)."""

    def __init__(self) -> None:
        self._by_name: dict[str, KernelFn] = {}

    def register(self, name: str, fn: KernelFn) -> None:
        if name in self._by_name:
            raise InvalidParamError(f"kernel {name!r} registered twice")
        self._by_name[name] = fn

    def lookup(self, name: str, opset: int) -> KernelFn:
        fn = self._by_name.get(name)
        if fn is not None:
            return fn
        try:
            return get_kernel(name, opset)
        except UnknownKernelError as exc:
            raise KernelLookupError(str(exc)) from exc


class KernelTask(Task):
    __slots__ = ("op_type", "opset", "fn", "attrs", "inputs", "outputs", "_views", "__weakref__")

    def __init__(self, op_type: str, opset: int, fn: KernelFn | None, attrs: dict[str, Any],
                 inputs: tuple[TensorArg | None, ...], outputs: tuple[TensorArg, ...],
                 unit: Unit, duration: int) -> None:
        super().__init__(_TYPE_OF_UNIT[unit], op_type, duration,
                         kind=PLAIN if fn is None else EFFECT, unit=unit,
                         reads=tuple(a.range for a in inputs if a is not None),
                         writes=tuple(a.range for a in outputs))
        self.op_type, self.opset, self.fn, self.attrs = op_type, opset, fn, attrs
        self.inputs, self.outputs = inputs, outputs
        self._views: tuple[DeviceMemory, int, list, list, bool] | None = None

    def complete(self, ts: TaskScheduler, stream: SchedStream) -> None:
        if self.fn is None:   # restored from a snapshot: look the kernel up again
            self.fn = ts.device.runtime.kernels.lookup(self.op_type, self.opset)
        memory = ts.device.memory
        args, outs, over_constants = self._checked_views(memory)
        try:
            self._run(ts, args, outs)
        finally:   # written, even in part: what was derived from the constants may be stale
            if over_constants:
                memory.constant_written()

    def _run(self, ts: TaskScheduler, args: list, outs: list) -> None:
        """The kernel on ``args``, its results written to ``outs``."""
        if getattr(self.fn, "writes_out", False):  # it writes where the args table points
            results = self.fn(*args, out=outs, **self.attrs)
        else:
            results = self.fn(*args, **self.attrs)
        if len(results) < len(self.outputs):
            raise TaskFaultError(f"{self.op_type} produced {len(results)} outputs, its args "
                                 f"table has {len(self.outputs)}")
        for arg, out, value in zip(self.outputs, outs, results):
            if value is out:
                continue
            value = np.asarray(value)
            if value.size != out.size:
                raise TaskFaultError(f"{self.op_type} output of shape {list(value.shape)} does "
                                     f"not fit the args table's {list(arg.shape)}")
            out[...] = value.reshape(arg.shape)

    def _checked_views(self, mem: DeviceMemory) -> tuple[list, list, bool]:
        """Views of the args table's tensors, checked against the live allocations again only
        after an allocation changed (a model runs the same tasks many times over), and whether
        an output lies in a constant block (``DeviceMemory.mark_constant``)."""
        views = self._views
        if views is None or views[0] is not mem or views[1] != mem.generation:
            views = self._views = (
                mem, mem.generation,
                [None if a is None else mem.view(a.addr, a.shape, a.dtype) for a in self.inputs],
                [mem.view(a.addr, a.shape, a.dtype) for a in self.outputs],
                any(mem.in_constant(a.addr) for a in self.outputs))
            mem.keep_views(self)
        return views[2], views[3], views[4]

    def drop_views(self) -> None:
        self._views = None


def make_kernel_task(device: DeviceLink, op_type: str, inputs: tuple[TensorArg | None, ...],
                     outputs: tuple[TensorArg, ...], attrs: dict[str, Any] | None = None, *,
                     opset: int = 10_000, unit: Unit | None = None,
                     duration_ns: int | None = None) -> KernelTask:
    """A kernel task, not yet submitted (a stream launches it, or a fusion takes it)."""
    fn = device.runtime.kernels.lookup(op_type, opset)
    unit = default_unit(op_type) if unit is None else Unit(unit)
    if duration_ns is None:
        present = [a for a in inputs if a is not None]
        nbytes = sum(a.nbytes for a in present) + sum(a.nbytes for a in outputs)
        duration_ns = device.cost.kernel_ns(op_type, unit, [a.shape for a in present],
                                            [a.shape for a in outputs], nbytes)
    return KernelTask(op_type, opset, fn, dict(attrs or {}), inputs, outputs, unit, duration_ns)
