"""What a snapshot holds of each runtime class, field by field (npu_emu/snapshot/codec.py).

Every field of a saved class is listed with the kind of value it holds, or as transient (the
trace bus, views cached for speed, the race detector: the run's, not the state's). A class not
listed here cannot be saved: a host callback or a lesson's registered kernel is code, and a
snapshot carries data only. tests/npu_emu/snapshot/test_snapshot.py checks the lists against the
attributes live objects really have, so a new field cannot be forgotten.
"""
from __future__ import annotations

import weakref
from typing import Any, Callable

from npu_emu.base.errors import ACL_ERROR_SNAPSHOT_BACKUP_FAILED, AclError
from npu_emu.checkers.deadlock import BlockedStream
from npu_emu.core.context import Context
from npu_emu.core.device import Device
from npu_emu.core.event import Event, EventRecordTask, EventResetTask, EventWaitTask
from npu_emu.core.kernel_task import KernelTable, KernelTask, TensorArg, tensor_arg
from npu_emu.core.label import (Label, LabelIdAllocator, LabelGotoTask, LabelSetTask,
                                LabelSwitchByIndexTask)
from npu_emu.core.notify import Notify, NotifyRecordTask, NotifyWaitTask
from npu_emu.core.program import Kernel, Program
from npu_emu.core.stream import Stream, StreamActiveTask, StreamSwitchExTask, StreamSwitchTask
from npu_emu.driver.memory import EPOCHS, DeviceMemory, HostMemory
from npu_emu.feature.auto_split import AutoSplitSqContext
from npu_emu.feature.capture import CaptureManager, CaptureSession, TaskGroup
from npu_emu.feature.fusion_launch import FusionTask
from npu_emu.feature.hccl import HcclTask
from npu_emu.feature.model import EndGraphTask, Model, ModelExecuteTask, ModelState
from npu_emu.runtime import Fault, Runtime, RuntimeConfig, ThreadContext
from npu_emu.scheduler.cost_model import CostModel, Unit
from npu_emu.scheduler.events import StreamState
from npu_emu.scheduler.sq_cq import CompletionQueue, SubmissionQueue
from npu_emu.scheduler.task import MemcpyTask, Task, TaskType
from npu_emu.scheduler.task_scheduler import TaskScheduler
from npu_emu.snapshot.check import check_host_memory, load_device_memory
from npu_emu.snapshot.codec import (BOOL, FLOAT, INT, STR, Array, ClassSpec, Enum, Inline, Map,
                                    Opt, Pair, Ref, Seq, SnapshotError, Spec, Tup, Value)


def ref(*classes: type) -> Ref:
    return Ref(lambda: classes)


TASK = Ref(lambda: tuple(c for c in SCHEMA if issubclass(c, Task)))
HANDLE = Ref(lambda: (Context, Stream, Event, Notify, Model, Label, TaskGroup, Program, Kernel,
                      *API_HANDLES))
RANGE = Tup(INT, 2)   # (addr, nbytes)
TENSOR = Inline(TensorArg, {"addr": INT, "shape": Tup(INT), "dtype": STR}, make=tensor_arg)
COST = Inline(CostModel, {**{name: INT for name in ("launch_ns", "aicpu_launch_ns",
                                                    "hccl_latency_ns", "host_launch_ns")},
                          **{name: FLOAT for name in ("cube_flops_per_ns", "vector_bytes_per_ns",
                                                      "aicpu_bytes_per_ns", "dvpp_bytes_per_ns",
                                                      "h2d_bytes_per_ns", "d2d_bytes_per_ns",
                                                      "hccl_bytes_per_ns")},
                          "units": Map(Enum(Unit), INT)})
CONFIG = Inline(RuntimeConfig, {**{name: INT for name in (
    "device_count", "memory_bytes", "max_events", "max_notifies", "host_sq_max_count")},
    "soc_version": STR, "sq_depth": Opt(INT), "race_check": BOOL, "cost": COST})
BLOCKED = Inline(BlockedStream, {"stream_id": INT, "sqe": STR, "waits_for": STR})


class _Error(Spec):
    """A stream's sticky error: an AclError's class (one of npu_emu.base.errors'), message and
    code."""

    def encode(self, value: Any, enc: Any) -> Any:
        return [type(value).__name__, str(value), value.code]

    def decode(self, data: Any, dec: Any) -> Any:
        from npu_emu.base import errors
        cls = getattr(errors, data[0], None) if isinstance(data, list) and len(data) == 3 \
            and isinstance(data[0], str) else None
        if not (isinstance(cls, type) and issubclass(cls, AclError)) or \
                not isinstance(data[1], str) or not isinstance(data[2], int):
            raise SnapshotError(f"{data!r} is not a runtime error")
        error = AclError.__new__(cls)
        AclError.__init__(error, data[1], data[2])
        return error


def _task(cls: type, transient: dict[str, Callable[[], Any]] | None = None,
          **fields: Spec) -> ClassSpec:
    base = {"task_id": INT, "stream": Opt(ref(Stream)), "pos": INT, "type": Enum(TaskType),
            "kind": INT, "unit": INT, "duration": INT, "name": STR, "reads": Tup(RANGE),
            "writes": Tup(RANGE)}
    return ClassSpec(cls, {**base, **fields}, transient or {})


def _spec(cls: type, fields: dict[str, Spec],
          transient: dict[str, Callable[[], Any]] | None = None, **options: Any) -> ClassSpec:
    return ClassSpec(cls, fields, transient or {}, **options)


def _check_program(program: Program) -> None:
    """A loaded binary's kernels are its own, named once each; its tables are made again."""
    if any(k.program is not program for k in program.kernels):
        raise SnapshotError("a kernel of a binary belongs to another binary")
    try:
        program.index()
    except AclError as exc:
        raise SnapshotError(str(exc)) from None


def _no_kernels(table: KernelTable) -> dict:
    """A registered kernel is a function: code, which a snapshot does not carry."""
    if table._by_name:
        raise SnapshotError(f"snapshot: registered kernels ({', '.join(sorted(table._by_name))}) "
                            f"are code and cannot be saved", ACL_ERROR_SNAPSHOT_BACKUP_FAILED)
    return {}


SPECS = [
    _spec(Runtime, {
        "config": CONFIG, "devices": Map(INT, ref(Device)), "contexts": Seq(ref(Context)),
        "current_context": Opt(ref(Context)), "kernels": ref(KernelTable),
        "host": ref(HostMemory), "models": Seq(ref(Model)), "capture": ref(CaptureManager),
        "faults": Seq(Inline(Fault, {"kind": STR, "message": STR})),
        "handles": Map(INT, HANDLE), "_ids": Map(STR, INT), "initialized": BOOL,
        "stream_names": Map(INT, STR)},
        {"bus": lambda: None, "race_detector": lambda: None, "_handle_of": dict,
         "_thread": ThreadContext, "_at_close": list}),   # threads above: the restorer's own
    _spec(KernelTable, {"_by_name": Map(STR, INT)}, getters={"_by_name": _no_kernels}),
    _spec(HostMemory, {"_next": INT, "_arrays": Map(INT, Array()), "_starts": Seq(INT)},
          {"_by_id": dict}, after=check_host_memory),
    _spec(Device, {
        "runtime": ref(Runtime), "id": INT, "cost": COST, "memory": ref(DeviceMemory),
        "event_flags": Array(bytearray), "event_times": Map(INT, INT),
        "notify_flags": Array(bytearray), "notify_counts": Map(INT, INT),
        "scheduler": ref(TaskScheduler), "_next_task_id": INT, "_control": Opt(ref(Stream))}),
    _spec(DeviceMemory, {
        "device_id": INT, "capacity": INT, "_extents": Seq(Tup(INT, 2)),
        "_pool": Map(INT, Seq(INT)), "_cached": Map(INT, INT), "_live": Map(INT, INT),
        "_class_of": Map(INT, INT), "_starts": Seq(INT), "generation": INT,
        "_constant": Seq(INT),
        "_buf": Seq(Pair(INT, Array()))},   # only allocated bytes: (addr, bytes) of each block
        transient={"_keepers": weakref.WeakSet, "epoch": lambda: next(EPOCHS)},
        getters={"_buf": lambda memory: memory.blocks(),
                 "_constant": lambda memory: sorted(memory._constant)},
        after=load_device_memory),
    _spec(TaskScheduler, {
        "device": ref(Device), "now": INT, "host_now": INT, "streams": Seq(ref(Stream)),
        "retired": INT, "last": Opt(TASK), "last_deadlock": Tup(BLOCKED), "_ready": Seq(INT),
        "_inflight": Seq(INT), "_free": Seq(INT), "_unit_waiters": Seq(Seq(INT)),
        "_event_waiters": Map(INT, Seq(ref(Stream))),
        "_notify_waiters": Map(INT, Seq(ref(Stream)))},
        {"bus": lambda: None, "advancing": lambda: False}),
    _spec(Context, {"device": ref(Device), "id": INT, "primary": BOOL,
                    "streams": Seq(ref(Stream)), "default_stream": ref(Stream),
                    "destroyed": BOOL}),
    _spec(Stream, {
        "device": ref(Device), "context": Opt(ref(Context)), "id": INT, "index": INT,
        "priority": INT, "key": INT, "sq": ref(SubmissionQueue), "cq": ref(CompletionQueue),
        "state": Enum(StreamState), "waiting": Opt(TASK), "persistent": BOOL,
        "model": Opt(ref(Model)), "flag": INT, "host_buffer": Opt(Seq(TASK)),
        "slave": Opt(ref(Stream)), "error": Opt(_Error()), "destroyed": BOOL}),
    _spec(SubmissionQueue, {"entries": Seq(TASK), "head": INT, "base": INT, "depth": INT}),
    _spec(CompletionQueue, {"tail": INT, "head": INT}),
    _spec(Event, {"device": ref(Device), "id": INT, "destroyed": BOOL}),
    _spec(Notify, {"device": ref(Device), "id": INT, "purpose": STR}),
    _spec(Model, {
        "device": ref(Device), "id": INT, "name": STR, "state": Enum(ModelState),
        "streams": Seq(ref(Stream)), "head_streams": Seq(ref(Stream)),
        "labels": ref(LabelIdAllocator), "end_notify": ref(Notify), "has_end_graph": BOOL,
        "running": BOOL, "exec_stream": Opt(ref(Stream)),
        "auto_split": Opt(ref(AutoSplitSqContext)), "_own_stream": Opt(ref(Stream))}),
    _spec(AutoSplitSqContext, {"model": ref(Model), "max_count": INT,
                               "_tail": Map(INT, ref(Stream))}),
    _spec(LabelIdAllocator, {"model": ref(Model), "max_labels": INT, "labels": Seq(ref(Label))}),
    _spec(Label, {"model": ref(Model), "id": INT, "stream": Opt(ref(Stream)), "pos": INT}),
    _spec(CaptureManager, {"runtime": ref(Runtime),
                           "_sessions": Map(INT, ref(CaptureSession)),
                           "_updates": Map(INT, Pair(ref(TaskGroup), Seq(TASK)))}),
    _spec(CaptureSession, {
        "origin": ref(Stream), "model": ref(Model), "model_streams": Map(INT, ref(Stream)),
        "events": Map(INT, ref(Event)), "group_start": Map(INT, INT),
        "captured": Map(INT, Seq(TASK)), "invalidated": STR}),
    _spec(TaskGroup, {"model": ref(Model), "tasks": Seq(TASK)}),
    _spec(Program, {"data": Array(bytes), "kernels": Seq(ref(Kernel)),
                    "device": Opt(ref(Device)), "dev_addr": Opt(INT), "unloaded": BOOL},
          {"_by_name": dict, "_table": list}, after=_check_program),
    _spec(Kernel, {"program": ref(Program), "name": STR, "tiling_key": INT, "op_type": STR,
                   "inputs": Tup(Pair(STR, Tup(INT))), "outputs": Tup(Pair(STR, Tup(INT))),
                   "attrs": Map(STR, Value())}),
    _task(Task),
    # the kernel function and the views of memory are looked up and made again when it runs
    _task(KernelTask, {"fn": lambda: None, "_views": lambda: None}, op_type=STR, opset=INT,
          attrs=Map(STR, Value()), inputs=Tup(Opt(TENSOR)), outputs=Tup(TENSOR)),
    _task(MemcpyTask, dst=INT, src=INT, count=INT),
    _task(EventRecordTask, event_id=INT), _task(EventResetTask, event_id=INT),
    _task(EventWaitTask, event_id=INT, reset=BOOL),
    _task(NotifyRecordTask, notify_id=INT), _task(NotifyWaitTask, notify_id=INT),
    _task(EndGraphTask, notify_id=INT, model=ref(Model)),
    _task(ModelExecuteTask, model=ref(Model)),
    _task(LabelSetTask, label=ref(Label)), _task(LabelGotoTask, label=ref(Label)),
    _task(LabelSwitchByIndexTask, index_addr=INT, labels=Tup(ref(Label))),
    _task(StreamActiveTask, target=ref(Stream)),
    _task(StreamSwitchTask, value_addr=INT, condition=INT, value=Value(), target=ref(Stream),
          dtype=STR),
    _task(StreamSwitchExTask, value_addr=INT, condition=INT, value=Value(), target=ref(Stream),
          dtype=STR, value_ptr=INT),
    _task(FusionTask, subtasks=Tup(TASK), units=Tup(INT)),
    _task(HcclTask, op=STR, send=INT, recv=INT, nbytes=INT),
]
SCHEMA: dict[type, ClassSpec] = {s.cls: s for s in SPECS}

# The handles of the API floor above (npu_emu/acl: aclDataBuffer, aclmdlDesc, aclmdlDataset) sit
# in the runtime's handle table too, but this floor cannot import the facade that defines them:
# each is declared where it is defined, with ``api_handle`` (as a kernel registers where it is
# written). A file naming one restores only where the facade is imported, as a program that made
# such handles has it.
API_HANDLES: list[type] = []


def api_handle(fields: dict[str, Spec]) -> Callable[[type], type]:
    """Declare an API-floor class a snapshot saves, with the specs of its fields."""

    def declare(cls: type) -> type:
        SCHEMA[cls] = _spec(cls, fields)
        API_HANDLES.append(cls)
        return cls

    return declare
