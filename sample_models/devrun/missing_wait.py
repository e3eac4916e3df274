"""Lesson: the producer/consumer program with the wait left out — a data race.

The producer needs two kernels (Exp, then Relu) to make y; the consumer's single Add starts at
once and reads y before the producer has written it. Nothing orders the two streams, so the
result depends on timing: here it is wrong. `--race-check` names both tasks whichever ran first.

    gewb devrun sample_models/devrun/missing_wait.py --race-check
"""
import numpy as np

import npu_emu.acl as acl
from npu_emu.acl.constants import ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE

N = 256
NBYTES = N * 4
vec = (N,)

acl.init()
acl.rt.set_device(0)
producer, ret = acl.rt.create_stream()
consumer, ret = acl.rt.create_stream()
x_dev, ret = acl.rt.malloc(NBYTES, 0)
t_dev, ret = acl.rt.malloc(NBYTES, 0)
y_dev, ret = acl.rt.malloc(NBYTES, 0)
z_dev, ret = acl.rt.malloc(NBYTES, 0)
x = np.linspace(-1, 1, N, dtype=np.float32)
acl.rt.memcpy(x_dev, NBYTES, acl.util.numpy_to_ptr(x), NBYTES, ACL_MEMCPY_HOST_TO_DEVICE)

acl.rt.launch_kernel("Exp", [(x_dev, vec, "float32")], [(t_dev, vec, "float32")], None, producer)
acl.rt.launch_kernel("Relu", [(t_dev, vec, "float32")], [(y_dev, vec, "float32")], None, producer)
# BUG: no record_event(producer) / stream_wait_event(consumer) here
acl.rt.launch_kernel("Add", [(y_dev, vec, "float32"), (y_dev, vec, "float32")],
                     [(z_dev, vec, "float32")], None, consumer)

z = np.zeros(N, dtype=np.float32)
acl.rt.memcpy_async(acl.util.numpy_to_ptr(z), NBYTES, z_dev, NBYTES, ACL_MEMCPY_DEVICE_TO_HOST,
                    consumer)
acl.rt.synchronize_stream(consumer)
acl.rt.synchronize_stream(producer)
print("z == 2 * exp(x):", bool(np.allclose(z, 2 * np.exp(x))))
acl.rt.reset_device(0)
acl.finalize()
