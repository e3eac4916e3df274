"""Lesson: fusion launch (rtFusionLaunch) and snapshot (aclrtSnapShot*).

Part 1, gang scheduling. The device has one AI Core and one AI CPU here (set for the lesson),
and the AI CPU is busy for 5 us. An AI Core kernel and an AI CPU kernel that belong together
are launched twice: on two streams, the scheduler, unaware they are partners, starts the AI Core
one at once and the AI CPU one 5 us later; fused into one SQE, both start together once both
units are free, and retire together.

Part 2, snapshot. Work is queued on two streams, four SQEs run, and the runtime's whole state
(memory, streams and their queues, events, the clock) is saved. The original runs on to the
end; the snapshot restored into a new runtime runs on to the same end, byte for byte.

Neither call is in the pyACL facade yet: this program uses the runtime's object API.

    gewb devrun sample_models/devrun/fusion_and_snapshot.py
"""
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

from npu_emu import snapshot
from npu_emu.cost_model import CostModel, Unit, default_unit_counts
from npu_emu.fusion_launch import fusion_launch
from npu_emu.kernel_task import make_kernel_task, tensor_arg
from npu_emu.world import World, current_runtime

N = 32
rt = current_runtime()
rt.configure(cost=replace(CostModel(), units={**default_unit_counts(), Unit.AI_CORE: 1,
                                              Unit.AI_CPU: 1}))
dev = rt.set_device(0)


def tensor(values: np.ndarray):
    addr = rt.malloc(values.nbytes)
    rt.memcpy(addr, rt.host.register(values), values.nbytes)
    return tensor_arg(addr, values.shape, values.dtype)


def partners(x, y, z):
    """An AI Core Relu (1 us) and an AI CPU Neg (2 us), made but not yet submitted."""
    return (make_kernel_task(dev, "Relu", (x,), (y,), unit=Unit.AI_CORE, duration_ns=1000),
            make_kernel_task(dev, "Neg", (x,), (z,), unit=Unit.AI_CPU, duration_ns=2000))


x = tensor(np.linspace(-1, 1, N, dtype=np.float32))
y, z = tensor(np.zeros(N, np.float32)), tensor(np.zeros(N, np.float32))
busy, core_s, cpu_s, fused_s = (rt.create_stream() for _ in range(4))

busy.launch_timed("aicpu busy", 5000, Unit.AI_CPU)
core_task, cpu_task = partners(x, y, z)
dev.submit(core_s, core_task)
dev.submit(cpu_s, cpu_task)
dev.synchronize()

busy.launch_timed("aicpu busy", 5000, Unit.AI_CPU)
fused = fusion_launch(fused_s, partners(x, y, z))
dev.synchronize()
x_host = np.linspace(-1, 1, N, dtype=np.float32)
print("fused: y == relu(x) and z == -x:",
      bool(np.array_equal(dev.memory.view(y.addr, (N,), "float32"), np.maximum(x_host, 0))
           and np.array_equal(dev.memory.view(z.addr, (N,), "float32"), -x_host)))

s1, s2 = rt.create_stream(), rt.create_stream()
a = tensor(np.linspace(0, 1, N, dtype=np.float32))
b, c = tensor(np.zeros(N, np.float32)), tensor(np.zeros(N, np.float32))
ready = rt.create_event()
for _ in range(4):
    s1.launch_kernel("Sin", [a], [b])
    s1.launch_kernel("Add", [a, b], [a])
s1.record_event(ready)
s2.wait_event(ready)
s2.launch_kernel("Mul", [a, a], [c])
for _ in range(4):
    dev.scheduler.step()
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "state.snap"
    snapshot.save(rt, path)
    print(f"snapshot after {dev.scheduler.retired} SQEs, at {dev.now} ns")
    dev.synchronize()
    restored = snapshot.restore(path)
with World(runtime=restored).entered():
    again = restored.device(0)
    print(f"restored: {again.scheduler.retired} SQEs retired, at {again.now} ns")
    again.synchronize()
    same = [again.memory.read(a, n) for a, n in again.memory.live_blocks()] == \
        [dev.memory.read(a, n) for a, n in dev.memory.live_blocks()]
    print(f"both ran on to {dev.now} and {again.now} ns; the same memory: {same}")
