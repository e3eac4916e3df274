"""Lesson: ACL Graph capture — record once, execute many times.

Stream s is captured: its launches are recorded into a model instead of running. An event
recorded on s pulls stream t into the capture (cross-stream capture); t is joined back by an
event s waits on before capture end. The captured model then runs 100 times on fresh inputs.
Finally a task group marks the Mul kernel, and a task update swaps it for an Add.

    gewb devrun sample_models/devrun/capture.py --race-check
"""
import numpy as np

import npu_emu.acl as acl
from npu_emu.acl.constants import ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE

N = 32
vec = (N,)
acl.init()
acl.rt.set_device(0)
s, _ = acl.rt.create_stream()
t, _ = acl.rt.create_stream()
run_stream, _ = acl.rt.create_stream()
x_dev, y_dev, z_dev, w_dev = (acl.rt.malloc(N * 4, 0)[0] for _ in range(4))
forked, _ = acl.rt.create_event()
joined, _ = acl.rt.create_event()


def arg(ptr):
    return (ptr, vec, "float32")


acl.mdl.ri_capture_begin(s, 0)
acl.rt.launch_kernel("Relu", [arg(x_dev)], [arg(y_dev)], None, s)   # y = relu(x)
acl.rt.record_event(forked, s)
acl.rt.stream_wait_event(t, forked)                                  # t joins the capture
acl.rt.launch_kernel("Neg", [arg(y_dev)], [arg(w_dev)], None, t)     # w = -y   (on t)
acl.rt.record_event(joined, t)
acl.mdl.ri_capture_task_grp_begin(s)
acl.rt.launch_kernel("Mul", [arg(y_dev), arg(y_dev)], [arg(z_dev)], None, s)  # z = y * y
group, _ = acl.mdl.ri_capture_task_grp_end(s)
acl.rt.stream_wait_event(s, joined)                                  # t joined back
model, ret = acl.mdl.ri_capture_end(s)
assert ret == 0, acl.get_recent_err_msg()


def run(x):
    z, w = np.zeros(N, np.float32), np.zeros(N, np.float32)
    acl.rt.memcpy(x_dev, N * 4, acl.util.numpy_to_ptr(x), N * 4, ACL_MEMCPY_HOST_TO_DEVICE)
    acl.mdl.ri_execute_async(model, run_stream)
    assert acl.rt.synchronize_stream(run_stream) == 0
    for host, dev in ((z, z_dev), (w, w_dev)):
        acl.rt.memcpy(acl.util.numpy_to_ptr(host), N * 4, dev, N * 4, ACL_MEMCPY_DEVICE_TO_HOST)
    return z, w


rng = np.random.default_rng(0)
good = 0
for _ in range(100):
    x = rng.standard_normal(N).astype(np.float32)
    z, w = run(x)
    y = np.maximum(x, 0)
    good += np.array_equal(z, y * y) and np.array_equal(w, -y)
print(f"100 executions of the captured model: {good} correct")

acl.mdl.ri_capture_task_update_begin(s, group)
acl.rt.launch_kernel("Add", [arg(y_dev), arg(y_dev)], [arg(z_dev)], None, s)  # z = y + y now
acl.mdl.ri_capture_task_update_end(s)
x = rng.standard_normal(N).astype(np.float32)
z, _ = run(x)
print("after the task update z == 2 * relu(x):", bool(np.array_equal(z, 2 * np.maximum(x, 0))))
acl.mdl.ri_destroy(model)
acl.finalize()
