"""Lesson: fusion launch (rtFusionLaunch) and snapshot (aclrtSnapShot*), through pyACL's names.

The kernels come from a kernel binary: acl.rt.binary_load_from_data registers its two functions
(a Program), found by name and by function entry (the tiling key), launched by handle.

Part 1, gang scheduling. The device has one AI Core and one Vector unit here (set for the
lesson), and a long element-wise kernel keeps the Vector unit busy for 5 us. The cube half and
the vector half of one job (think of a mix kernel, whose halves exchange data as they run) are
launched twice: on two streams, the scheduler, unaware they are partners, starts the cube half
at once and the vector half 5 us later; fused into one SQE (acl.rt.fusion_launch), both start
together once both units are free, and retire together.

Part 2, snapshot. Work is queued on two streams and the host waits until part of it has run;
then the process is locked, backed up and unlocked, with a callback at each stage. The original
runs on to the end; the backup restored in its place (the same handles, the same pointers) runs
on to the same bytes.

    gewb devrun sample_models/devrun/fusion_and_snapshot.py
"""
import json
import os

import numpy as np

import npu_emu.acl as acl
from npu_emu.acl.constants import ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE
from npu_emu.scheduler.cost_model import CostModel, Unit, default_unit_counts
from npu_emu.snapshot.snapshot import SnapShotStage
from npu_emu.world import current_runtime

N = 256          # the vector half's elements
M = 16           # the cube half multiplies M x M matrices
BUSY = 128_000   # the busy kernel's elements: 5 us on the Vector unit
BINARY = json.dumps({"kernels": [
    {"name": "mix_cube_1", "kernel": "MatMul",
     "inputs": [["float32", [M, M]], ["float32", [M, M]]], "outputs": [["float32", [M, M]]]},
    {"name": "mix_vector_2", "kernel": "Relu",
     "inputs": [["float32", [N]]], "outputs": [["float32", [N]]]},
]}).encode()

# The device's shape is the emulator's config, which no ACL call sets.
current_runtime().configure(cost=CostModel(units={**default_unit_counts(), Unit.AI_CORE: 1,
                                                  Unit.AI_VECTOR: 1}))
acl.init()
acl.rt.set_device(0)


def ok(ret: int) -> None:
    assert ret == 0, acl.get_recent_err_msg()


def device_array(values: np.ndarray) -> int:
    ptr, _ = acl.rt.malloc(values.nbytes, 0)
    ok(acl.rt.memcpy(ptr, values.nbytes, acl.util.numpy_to_ptr(values), values.nbytes,
                     ACL_MEMCPY_HOST_TO_DEVICE))
    return ptr


def host_copy(ptr: int, shape: tuple) -> np.ndarray:
    out = np.zeros(shape, np.float32)
    ok(acl.rt.memcpy(acl.util.numpy_to_ptr(out), out.nbytes, ptr, out.nbytes,
                     ACL_MEMCPY_DEVICE_TO_HOST))
    return out


def launch(function: int, stream: int, *addresses: int) -> None:
    """aclrtLaunchKernelWithHostArgs: the args table in host memory, one address a tensor."""
    table = np.array(addresses, dtype="<u8")
    ok(acl.rt.launch_kernel_with_host_args(function, 1, stream, None,
                                           acl.util.numpy_to_ptr(table), table.nbytes, None, 0))


def keep_vector_busy(stream: int) -> None:
    big = (BUSY,)
    src, dst = (acl.rt.malloc(BUSY * 4, 0)[0] for _ in range(2))
    ok(acl.rt.launch_kernel("Abs", [(src, big, "float32")], [(dst, big, "float32")], None,
                            stream))


binary, ret = acl.rt.binary_load_from_data(acl.util.bytes_to_ptr(BINARY), len(BINARY), None)
ok(ret)
cube, _ = acl.rt.binary_get_function(binary, "mix_cube_1")      # by name
vector, _ = acl.rt.binary_get_function_by_entry(binary, 2)      # by tiling key
address, size, _ = acl.rt.binary_get_dev_address(binary)
print(f"binary loaded: {acl.rt.get_function_name(cube, 64)[0]} found by name, "
      f"{acl.rt.get_function_name(vector, 64)[0]} by tiling key 2; on the device at "
      f"{address:#x}, {size} bytes")
rng = np.random.default_rng(0)
a, b = rng.standard_normal((M, M), np.float32), rng.standard_normal((M, M), np.float32)
v = np.linspace(-1, 1, N, dtype=np.float32)
a_dev, b_dev, v_dev = device_array(a), device_array(b), device_array(v)
c_dev, r_dev = device_array(np.zeros((M, M), np.float32)), device_array(np.zeros(N, np.float32))
busy, cube_s, vector_s, fused_s = (acl.rt.create_stream()[0] for _ in range(4))

keep_vector_busy(busy)
launch(cube, cube_s, a_dev, b_dev, c_dev)
launch(vector, vector_s, v_dev, r_dev)
ok(acl.rt.synchronize_device())

keep_vector_busy(busy)
ok(acl.rt.fusion_launch([{"type": "aicore", "func": cube, "args": [a_dev, b_dev, c_dev]},
                         {"type": "aivector", "func": vector, "args": [v_dev, r_dev]}],
                        fused_s))
ok(acl.rt.synchronize_device())
print("fused: c == a @ b and r == relu(v):",
      bool(np.allclose(host_copy(c_dev, (M, M)), a @ b, rtol=1e-5, atol=1e-5)
           and np.array_equal(host_copy(r_dev, (N,)), np.maximum(v, 0))))


def on_stage(device_id: int, stage: str) -> int:
    print(f"snapshot callback: {stage} on device {device_id}")
    return 0


for stage in SnapShotStage:
    ok(acl.rt.snap_shot_callback_register(stage, on_stage, stage.name))
s1, s2 = acl.rt.create_stream()[0], acl.rt.create_stream()[0]
x = np.linspace(0, 1, N, dtype=np.float32)
x_dev, y_dev, z_dev = device_array(x), device_array(np.zeros(N, np.float32)), \
    device_array(np.zeros(N, np.float32))
tensor = (N,), "float32"
half_way, _ = acl.rt.create_event()
for i in range(8):
    ok(acl.rt.launch_kernel("Sin", [(x_dev, *tensor)], [(y_dev, *tensor)], None, s1))
    ok(acl.rt.launch_kernel("Add", [(x_dev, *tensor), (y_dev, *tensor)], [(x_dev, *tensor)],
                            None, s1))
    if i == 3:
        ok(acl.rt.record_event(half_way, s1))
ok(acl.rt.stream_wait_event(s2, half_way))
ok(acl.rt.launch_kernel("Mul", [(x_dev, *tensor), (x_dev, *tensor)], [(z_dev, *tensor)], None,
                        s2))
ok(acl.rt.synchronize_event(half_way))     # the first four rounds have run; the rest are queued
pid = os.getpid()
for step in (acl.rt.snap_shot_process_lock, acl.rt.snap_shot_process_backup,
             acl.rt.snap_shot_process_unlock):
    ok(step(pid, None))
ok(acl.rt.synchronize_device())
original = host_copy(z_dev, (N,))
ok(acl.rt.snap_shot_process_restore(pid, None))
print("restored: z is the backup's again (the Mul had not run):",
      bool(not host_copy(z_dev, (N,)).any()))
ok(acl.rt.snap_shot_process_unlock(pid, None))
ok(acl.rt.synchronize_device())            # the restored process runs on from the backup
print("restored, ran on: the same z as the original:",
      bool(np.array_equal(host_copy(z_dev, (N,)), original)))
ok(acl.rt.binary_unload(binary))
ok(acl.finalize())
