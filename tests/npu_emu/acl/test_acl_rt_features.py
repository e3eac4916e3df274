"""acl.rt's kernel binaries, Snapshot and fusion launch, as a pyACL program calls them."""
import json
import os
import weakref

import numpy as np
import pytest

import npu_emu.acl as acl
from npu_emu_testing import make_runtime
from npu_emu.acl.constants import (ACL_ERROR_RT_INVALID_HANDLE, ACL_ERROR_RT_PARAM_INVALID,
                                   ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE,
                                   NPY_FLOAT32)
from npu_emu.base.errors import ACL_ERROR_RT_INTERNAL_ERROR, ACL_ERROR_RT_KERNEL_LOOKUP
from npu_emu.feature.fusion_launch import FusionTask
from npu_emu.scheduler.cost_model import CostModel, Unit, default_unit_counts
from npu_emu.scheduler.events import SqeDispatched
from npu_emu.snapshot.snapshot import SnapShotStage
from npu_emu.world import World, current_runtime

N = 8
BINARY = json.dumps({"kernels": [
    {"name": "mul_custom_8", "kernel": "Mul",
     "inputs": [["float32", [N]], ["float32", [N]]], "outputs": [["float32", [N]]]},
    {"name": "neg_custom_1", "kernel": "Neg", "inputs": [["float32", [N]]],
     "outputs": [["float32", [N]]]},
]}).encode()


@pytest.fixture
def fresh():
    # one AI Core and one AI CPU, so a fused task must wait for both at once
    rt = make_runtime(cost=CostModel(units={**default_unit_counts(), Unit.AI_CORE: 1,
                                            Unit.AI_CPU: 1}))
    with World(runtime=rt).entered():
        assert acl.init() == 0 and acl.rt.set_device(0) == 0
        yield rt


def device_array(values: np.ndarray) -> int:
    ptr, _ = acl.rt.malloc(values.nbytes, 0)
    acl.rt.memcpy(ptr, values.nbytes, acl.util.numpy_to_ptr(values), values.nbytes,
                  ACL_MEMCPY_HOST_TO_DEVICE)
    return ptr


def host_copy(ptr: int, n: int = N) -> np.ndarray:
    host, _ = acl.rt.malloc_host(4 * n)
    assert acl.rt.memcpy(host, 4 * n, ptr, 4 * n, ACL_MEMCPY_DEVICE_TO_HOST) == 0
    return acl.util.ptr_to_numpy(host, (n,), NPY_FLOAT32).copy()


def args_table(*addresses: int) -> tuple[int, int]:
    table = np.array(addresses, dtype="<u8")
    return acl.util.numpy_to_ptr(table), table.nbytes


def test_load_a_binary_get_its_functions_and_launch_by_handle(fresh):
    binary, ret = acl.rt.binary_load_from_data(acl.util.bytes_to_ptr(BINARY), len(BINARY), None)
    assert ret == 0
    mul, ret = acl.rt.binary_get_function(binary, "mul_custom_8")
    assert ret == 0 and acl.rt.binary_get_function_by_entry(binary, 8) == (mul, 0)
    assert acl.rt.get_function_name(mul, 64) == ("mul_custom_8", 0)
    addr, size, ret = acl.rt.binary_get_dev_address(binary)
    assert ret == 0 and size >= len(BINARY) and size % 4096 == 0
    a, b = np.arange(N, dtype=np.float32), np.full(N, -2, np.float32)
    x, y, z = device_array(a), device_array(b), device_array(np.zeros(N, np.float32))
    stream, _ = acl.rt.create_stream()
    table, size = args_table(x, y, z)
    assert acl.rt.launch_kernel_with_host_args(mul, 1, stream, None, table, size, None, 0) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    np.testing.assert_array_equal(host_copy(z), a * b)
    assert acl.rt.binary_get_function(binary, "add")[1] == ACL_ERROR_RT_KERNEL_LOOKUP
    assert acl.rt.binary_get_function_by_entry(binary, 2)[1] == ACL_ERROR_RT_KERNEL_LOOKUP
    assert acl.rt.launch_kernel_with_host_args(mul, 1, stream, None, table, 16, None,
                                               0) == ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.binary_unload(binary) == 0
    assert acl.rt.launch_kernel_with_host_args(mul, 1, stream, None, table, size, None,
                                               0) == ACL_ERROR_RT_INVALID_HANDLE
    assert acl.rt.binary_get_function(binary, "mul_custom_8")[1] == ACL_ERROR_RT_INVALID_HANDLE


def test_binaries_load_from_files_and_bad_ones_are_refused(fresh, tmp_path):
    path = tmp_path / "kernels.bin"
    path.write_bytes(BINARY)
    binary, ret = acl.rt.binary_load_from_file(str(path), None)
    assert ret == 0 and acl.rt.binary_get_function(binary, "neg_custom_1")[1] == 0
    assert acl.rt.binary_load_from_file(str(tmp_path / "none.bin"), None) == \
        (None, ACL_ERROR_RT_PARAM_INVALID)
    assert acl.rt.binary_load_from_data(acl.util.bytes_to_ptr(b"\x7fELF"), 4, None) == \
        (None, ACL_ERROR_RT_PARAM_INVALID)
    assert "not an npu_emu kernel binary" in acl.get_recent_err_msg()


def test_a_backup_restores_memory_and_handles_and_runs_the_stage_callbacks(fresh):
    pid, calls = os.getpid(), []

    def record(device_id, stage):
        calls.append((stage.name, device_id))
        return 0
    for stage in SnapShotStage:
        assert acl.rt.snap_shot_callback_register(stage, record, stage) == 0
    a = np.arange(N, dtype=np.float32)
    x = device_array(a)
    stream, _ = acl.rt.create_stream()
    assert acl.rt.snap_shot_process_backup(pid, None) == ACL_ERROR_RT_PARAM_INVALID  # not locked
    for step in (acl.rt.snap_shot_process_lock, acl.rt.snap_shot_process_backup,
                 acl.rt.snap_shot_process_unlock):
        assert step(pid, None) == 0
    before_restore = current_runtime()
    acl.rt.launch_kernel("Neg", [(x, (N,), "float32")], [(x, (N,), "float32")], None, stream)
    assert acl.rt.synchronize_stream(stream) == 0
    np.testing.assert_array_equal(host_copy(x), -a)
    replaced = weakref.ref(before_restore.device(0).memory._buf)   # the Neg task kept views of it
    del before_restore
    assert acl.rt.snap_shot_process_restore(pid, None) == 0
    assert acl.rt.snap_shot_process_unlock(pid, None) == 0
    assert replaced() is None   # the fixture keeps the replaced runtime: its memory went anyway
    np.testing.assert_array_equal(host_copy(x), a)   # the backup's memory, the same pointer
    assert acl.rt.synchronize_stream(stream) == 0    # and the same stream handle
    assert calls == [("LOCK_PRE", 0), ("BACKUP_PRE", 0), ("BACKUP_POST", 0), ("UNLOCK_POST", 0),
                     ("RESTORE_PRE", 0), ("RESTORE_POST", 0), ("UNLOCK_POST", 0)]


def test_a_loaded_binary_survives_a_backup_and_restore(fresh):
    binary, _ = acl.rt.binary_load_from_data(acl.util.bytes_to_ptr(BINARY), len(BINARY), None)
    neg, _ = acl.rt.binary_get_function(binary, "neg_custom_1")
    pid = os.getpid()
    for step in (acl.rt.snap_shot_process_lock, acl.rt.snap_shot_process_backup,
                 acl.rt.snap_shot_process_unlock, acl.rt.snap_shot_process_restore,
                 acl.rt.snap_shot_process_unlock):
        assert step(pid, None) == 0, acl.get_recent_err_msg()
    assert acl.rt.binary_get_function_by_entry(binary, 1)[1] == 0   # its tables made again
    a = np.arange(N, dtype=np.float32)
    x, y = device_array(a), device_array(np.zeros(N, np.float32))
    stream, _ = acl.rt.create_stream()
    table, size = args_table(x, y)
    assert acl.rt.launch_kernel_with_host_args(neg, 1, stream, None, table, size, None, 0) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    np.testing.assert_array_equal(host_copy(y), -a)


def test_snapshot_misuse_is_refused_with_a_code(fresh):
    pid = os.getpid()
    assert acl.rt.snap_shot_process_restore(pid, None) == ACL_ERROR_RT_PARAM_INVALID  # no backup
    assert acl.rt.snap_shot_process_lock(pid + 1, None) == ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.snap_shot_process_unlock(pid, None) == ACL_ERROR_RT_PARAM_INVALID

    def failing(device_id, args):
        return 7
    assert acl.rt.snap_shot_callback_register(SnapShotStage.LOCK_PRE, failing, None) == 0
    assert acl.rt.snap_shot_process_lock(pid, None) == ACL_ERROR_RT_INTERNAL_ERROR
    assert "LOCK_PRE callback returned 7 on device 0" in acl.get_recent_err_msg()
    assert acl.rt.snap_shot_callback_unregister(SnapShotStage.LOCK_PRE, failing) == 0
    assert acl.rt.snap_shot_callback_unregister(SnapShotStage.LOCK_PRE, failing) == \
        ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.snap_shot_process_lock(pid, None) == 0


def test_fusion_launch_gang_schedules_an_ai_core_and_an_ai_cpu_kernel(fresh):
    binary, _ = acl.rt.binary_load_from_data(acl.util.bytes_to_ptr(BINARY), len(BINARY), None)
    mul, _ = acl.rt.binary_get_function(binary, "mul_custom_8")
    neg, _ = acl.rt.binary_get_function(binary, "neg_custom_1")
    a = np.arange(N, dtype=np.float32)
    x, y, z = (device_array(v) for v in (a, a, np.zeros(N, np.float32)))
    busy, fused = acl.rt.create_stream()[0], acl.rt.create_stream()[0]
    rt = current_runtime()
    rt.resolve(busy, type(rt.default_stream())).launch_timed("cpu work", 5000, Unit.AI_CPU)
    assert acl.rt.fusion_launch([{"type": "aicore", "func": mul, "args": [x, x, z]},
                                 {"type": "aicpu", "func": neg, "args": [y, y]}], fused) == 0
    assert acl.rt.synchronize_device() == 0
    np.testing.assert_array_equal(host_copy(z), a * a)
    np.testing.assert_array_equal(host_copy(y), -a)
    starts = {type(e.task): e.time_ns for e in rt.recorder.events if isinstance(e, SqeDispatched)}
    assert starts[FusionTask] == 5000   # the AI Core was free at 0: it waited for the AI CPU
    assert acl.rt.fusion_launch([{"type": "dsp", "func": mul}], fused) == \
        ACL_ERROR_RT_PARAM_INVALID
    assert "type 'dsp'" in acl.get_recent_err_msg()
