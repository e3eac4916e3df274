"""``acl.rt``'s kernel binaries, Snapshot and fusion launch, under pyACL's names (the package
registers them into ``acl.rt``).

    bin, ret = acl.rt.binary_load_from_data(ptr, size, None)    # or binary_load_from_file(path)
    fn, ret = acl.rt.binary_get_function(bin, "add_custom_8")   # or ..._by_entry(bin, 8)
    ret = acl.rt.launch_kernel_with_host_args(fn, 1, stream, None, args_ptr, 24, None, 0)

    acl.rt.snap_shot_process_lock(pid, None); acl.rt.snap_shot_process_backup(pid, None)
    acl.rt.snap_shot_process_unlock(pid, None) ... acl.rt.snap_shot_process_restore(pid, None)

    ret = acl.rt.fusion_launch([{"type": "aicore", "func": fn, "args": [x, y]},
                                {"type": "aicpu", "func": fn2, "args": [y, z]}], stream)

A binary is npu_emu's JSON kernel binary (npu_emu/core/program.py); an args table in host memory is
little-endian uint64 device addresses, one per kernel input then output. CANN has no aclrt
wrapper for rtFusionLaunch; ``fusion_launch`` is the runtime call's name.
"""
from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Any

from npu_emu.acl._call import acl_call, rt
from npu_emu.acl.c_types import (Callback, Handle, Int32, Opaque, Ptr, Size, StreamHandle,
                                 SubTasks, Text, UInt32, UInt64)
from npu_emu.acl.rt import stream_of
from npu_emu.base.errors import InvalidParamError
from npu_emu.core.program import Kernel, Program
from npu_emu.feature.fusion_launch import fusion_launch as _fusion_launch
from npu_emu.feature.hccl import make_hccl_task
from npu_emu.scheduler.cost_model import Unit
from npu_emu.snapshot.snapshot import ProcessSnapShot
from npu_emu.world import current_world

__all__ = ["binary_load_from_data", "binary_load_from_file", "binary_unload",
           "binary_get_function", "binary_get_function_by_entry", "binary_get_dev_address",
           "get_function_name", "launch_kernel_with_host_args", "snap_shot_process_lock",
           "snap_shot_process_unlock", "snap_shot_process_backup", "snap_shot_process_restore",
           "snap_shot_callback_register", "snap_shot_callback_unregister", "fusion_launch"]

_UNITS = {"aicore": Unit.AI_CORE, "aivector": Unit.AI_VECTOR, "aicpu": Unit.AI_CPU}


# -- kernel binaries (aclrtBinary*) --------------------------------------------------------------
@acl_call(1)
def binary_load_from_data(data: Ptr, length: Size, options: Opaque) -> tuple[int, int]:
    """``data``: a host pointer (acl.util.bytes_to_ptr) to ``length`` bytes of binary."""
    return rt().handle(Program(rt().host.bytes_view(data, length).tobytes())), 0


@acl_call(1)
def binary_load_from_file(bin_path: Text, options: Opaque) -> tuple[int, int]:
    try:
        data = Path(bin_path).read_bytes()
    except OSError as exc:
        raise InvalidParamError(f"binary {bin_path}: {exc.strerror or exc}") from None
    return rt().handle(Program(data)), 0


@acl_call()
def binary_unload(bin_handle: Handle) -> int:
    rt().resolve(bin_handle, Program).unload()
    del rt().handles[bin_handle]
    return 0


@acl_call(1)
def binary_get_function(bin_handle: Handle, kernel_name: Text) -> tuple[int, int]:
    return _function(rt().resolve(bin_handle, Program).kernel_by_name(kernel_name)), 0


@acl_call(1)
def binary_get_function_by_entry(bin_handle: Handle, func_entry: UInt64) -> tuple[int, int]:
    return _function(rt().resolve(bin_handle, Program).kernel_by_tiling_key(func_entry)), 0


def _function(kernel: Kernel) -> int:
    # the first function asked of a binary copies it to the current device (Load2Device)
    kernel.program.load_to_device(rt().device())
    return rt().handle(kernel)


@acl_call(2)
def binary_get_dev_address(bin_handle: Handle) -> tuple[int, int, int]:
    program = rt().resolve(bin_handle, Program)
    return program.load_to_device(rt().device()), program.dev_size, 0


@acl_call(1)
def get_function_name(func_handle: Handle, max_len: UInt32) -> tuple[str, int]:
    return rt().resolve(func_handle, Kernel).name[:max(max_len - 1, 0)], 0   # room for NUL


@acl_call()
def launch_kernel_with_host_args(func_handle: Handle, num_blocks: UInt32, stream: StreamHandle,
                                 cfg: Opaque, host_args: Ptr, args_size: Size,
                                 place_holder_array: Opaque, place_holder_num: Size) -> int:
    kernel = rt().resolve(func_handle, Kernel)
    kernel.launch(stream_of(stream), _args_table(host_args, args_size), num_blocks)
    return 0


def _args_table(host_args: int, args_size: int) -> list[int]:
    if args_size % 8:
        raise InvalidParamError(f"args size {args_size}: the table holds 8-byte addresses")
    raw = rt().host.bytes_view(host_args, args_size).tobytes()
    return list(struct.unpack(f"<{args_size // 8}Q", raw))


# -- Snapshot (aclrtSnapShot*) -------------------------------------------------------------------
def _process(pid: int) -> ProcessSnapShot:
    if pid != os.getpid():
        raise InvalidParamError(f"snapshot of pid {pid}: only this process ({os.getpid()})")
    return current_world().instance(ProcessSnapShot)


@acl_call()
def snap_shot_process_lock(pid: Int32, reserve: Opaque) -> int:
    _process(pid).lock(current_world())
    return 0


@acl_call()
def snap_shot_process_unlock(pid: Int32, reserve: Opaque) -> int:
    _process(pid).unlock(current_world())
    return 0


@acl_call()
def snap_shot_process_backup(pid: Int32, args: Opaque) -> int:
    _process(pid).backup(current_world())
    return 0


@acl_call()
def snap_shot_process_restore(pid: Int32, args: Opaque) -> int:
    _process(pid).restore(current_world())
    return 0


@acl_call()
def snap_shot_callback_register(stage: UInt32, callback: Callback, args: Opaque) -> int:
    current_world().instance(ProcessSnapShot).register(stage, callback, args)
    return 0


@acl_call()
def snap_shot_callback_unregister(stage: UInt32, callback: Callback) -> int:
    current_world().instance(ProcessSnapShot).unregister(stage, callback)
    return 0


# -- fusion launch (rtFusionLaunch) --------------------------------------------------------------
@acl_call()
def fusion_launch(fusion_info: SubTasks, stream: StreamHandle, args_info: Opaque = None
                  ) -> int:
    """Sub-tasks, gang-scheduled as one SQE: ``{"type": "aicore"|"aivector"|"aicpu", "func":
    handle, "args": [addresses], "num_blocks": n}`` or ``{"type": "ccu", "op": "AllReduce",
    "send": ptr, "recv": ptr, "count": n, "dtype": "float32"}``. Ours (not GE): the runtime has
    rtFusionLaunch only (pkg_inc/runtime/rt_external_kernel.h), whose rtFusionType_t has no
    "aivector": a mix kernel's vector half rides in its one AICORE sub-task."""
    s = stream_of(stream)
    _fusion_launch(s, [_sub_task(s.device, i, spec) for i, spec in enumerate(fusion_info)])
    return 0


def _sub_task(device: Any, index: int, spec: dict) -> Any:
    kind = spec.get("type") if isinstance(spec, dict) else None
    try:
        if kind == "ccu":
            return make_hccl_task(device, spec["op"], spec["send"], spec["recv"], spec["count"],
                                  spec["dtype"])
        if kind in _UNITS:
            kernel = rt().resolve(spec["func"], Kernel)
            return kernel.task(device, spec["args"], spec.get("num_blocks", 1), _UNITS[kind])
    except KeyError as exc:
        raise InvalidParamError(f"fusion sub-task {index}: no {exc}") from None
    except (TypeError, ValueError) as exc:
        raise InvalidParamError(f"fusion sub-task {index}: {exc}") from None
    raise InvalidParamError(f"fusion sub-task {index}: type {kind!r} (types: "
                            f"{', '.join([*_UNITS, 'ccu'])})")
