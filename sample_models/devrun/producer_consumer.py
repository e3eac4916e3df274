"""Lesson: two streams, ordered by an event.

The producer stream computes y = Relu(x) and records an event; the consumer stream waits on it
before computing z = y + y. The wait is what makes the consumer see the producer's output.

    gewb devrun sample_models/devrun/producer_consumer.py --race-check --trace pc.json
"""
import numpy as np

import npu_emu.acl as acl
from npu_emu.acl.constants import ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE


def check(ret, what):
    if ret != 0:
        raise SystemExit(f"{what} failed: {ret} ({acl.get_recent_err_msg()})")


N = 256
NBYTES = N * 4

check(acl.init(), "acl.init")
check(acl.rt.set_device(0), "set_device")
context, ret = acl.rt.create_context(0)
producer, ret = acl.rt.create_stream()
consumer, ret = acl.rt.create_stream()

x_dev, ret = acl.rt.malloc(NBYTES, 0)
y_dev, ret = acl.rt.malloc(NBYTES, 0)
z_dev, ret = acl.rt.malloc(NBYTES, 0)
x = np.linspace(-1, 1, N, dtype=np.float32)
check(acl.rt.memcpy(x_dev, NBYTES, acl.util.numpy_to_ptr(x), NBYTES, ACL_MEMCPY_HOST_TO_DEVICE),
      "memcpy H2D")

y_ready, ret = acl.rt.create_event()
vec = (N,)
acl.rt.launch_kernel("Relu", [(x_dev, vec, "float32")], [(y_dev, vec, "float32")], None, producer)
check(acl.rt.record_event(y_ready, producer), "record_event")
check(acl.rt.stream_wait_event(consumer, y_ready), "stream_wait_event")
acl.rt.launch_kernel("Add", [(y_dev, vec, "float32"), (y_dev, vec, "float32")],
                     [(z_dev, vec, "float32")], None, consumer)

z = np.zeros(N, dtype=np.float32)
check(acl.rt.memcpy_async(acl.util.numpy_to_ptr(z), NBYTES, z_dev, NBYTES,
                          ACL_MEMCPY_DEVICE_TO_HOST, consumer), "memcpy_async D2H")
check(acl.rt.synchronize_stream(consumer), "synchronize consumer")
check(acl.rt.synchronize_stream(producer), "synchronize producer")

expected = 2 * np.maximum(x, 0)
print("z == 2 * relu(x):", bool(np.array_equal(z, expected)))

for ptr in (x_dev, y_dev, z_dev):
    acl.rt.free(ptr)
acl.rt.destroy_stream(producer)
acl.rt.destroy_stream(consumer)
acl.rt.destroy_context(context)
acl.rt.reset_device(0)
acl.finalize()
