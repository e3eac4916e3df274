"""Lesson: two devices, and a context per thread.

The runtime keeps the current context per host thread (InnerThreadLocalContainer::curCtx_ in
the runtime's inner_thread_local.hpp): a new thread has none, so its first aclrtCreateStream
fails with ACL_ERROR_RT_CONTEXT_NULL (107002). Each worker thread here sets its own device and
creates a context of its own (aclrtSetDevice, aclrtCreateContext, which makes it the thread's
current context), then computes y = x * x on that device. The main thread's current context is
untouched by theirs. Each device has its own memory, streams and clock.

The emulated devices advance only inside the calls of whichever thread drives them, so the
main thread waits for each worker in the same line that starts it: one thread runs at a time
and the run stays deterministic. Each worker reports to the main thread, which prints.

    gewb devrun sample_models/devrun/devices_and_contexts.py
"""
import contextvars
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import npu_emu.acl as acl
from npu_emu.acl.constants import ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE
from npu_emu.world import current_runtime

N = 8
current_runtime().configure(device_count=2)
acl.init()
acl.rt.set_device(0)                        # the main thread: device 0's primary context
main_context, _ = acl.rt.get_context()
print("devices:", acl.rt.get_device_count()[0])


def worker(device_id, reports):
    _, before = acl.rt.create_stream()      # a new thread has no current context yet
    acl.rt.set_device(device_id)
    context, _ = acl.rt.create_context(device_id)   # current in this thread from now on
    stream, _ = acl.rt.create_stream()
    x = np.arange(N, dtype=np.float32) + device_id
    x_dev, _ = acl.rt.malloc(x.nbytes, 0)
    y_dev, _ = acl.rt.malloc(x.nbytes, 0)
    acl.rt.memcpy(x_dev, x.nbytes, acl.util.numpy_to_ptr(x), x.nbytes, ACL_MEMCPY_HOST_TO_DEVICE)
    arg = [(x_dev, (N,), "float32")]
    acl.rt.launch_kernel("Mul", arg + arg, [(y_dev, (N,), "float32")], None, stream)
    acl.rt.synchronize_stream(stream)
    y = np.zeros(N, np.float32)
    acl.rt.memcpy(acl.util.numpy_to_ptr(y), y.nbytes, y_dev, y.nbytes, ACL_MEMCPY_DEVICE_TO_HOST)
    reports[device_id] = {"create_stream before a context": before,
                          "device": acl.rt.get_device()[0],
                          "its own context current": acl.rt.get_context()[0] == context,
                          "y == x * x": bool(np.array_equal(y, x * x))}


reports = {}
for device_id in (0, 1):                    # a fresh thread per device, in this run's world
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(contextvars.copy_context().run, worker, device_id, reports).result()
for device_id, report in reports.items():
    print(f"thread {device_id}:", report)
print("main thread: still device", acl.rt.get_device()[0], "and its own context:",
      acl.rt.get_context()[0] == main_context)
acl.rt.reset_device(1)                      # each device's contexts and streams go with it
acl.rt.reset_device(0)
acl.finalize()
