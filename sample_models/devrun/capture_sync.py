"""Lesson: a captured stream must not be synchronized.

While stream s captures (aclmdlRICaptureBegin), its launches are recorded into a model and do
not run, so there is nothing to wait for: aclrtSynchronizeStream(s) is refused with
ACL_ERROR_RT_STREAM_CAPTURED (107027), "Stream (stream_id=...) during the capture stage is not
supported" (the runtime's ApiErrorDecorator::StreamSynchronize, api_error.cc). The refusal
changes nothing: the capture goes on, and another stream, outside the capture, synchronizes as
ever. The wait belongs after the captured model is executed.

    gewb devrun sample_models/devrun/capture_sync.py
"""
import numpy as np

import npu_emu.acl as acl
from npu_emu.acl.constants import (ACL_ERROR_RT_STREAM_CAPTURED, ACL_MEMCPY_DEVICE_TO_HOST,
                                   ACL_MEMCPY_HOST_TO_DEVICE)

N = 16
vec = (N,)
acl.init()
acl.rt.set_device(0)
s, _ = acl.rt.create_stream()
other, _ = acl.rt.create_stream()
x_dev, y_dev = (acl.rt.malloc(N * 4, 0)[0] for _ in range(2))
x = np.linspace(-1, 1, N, dtype=np.float32)
acl.rt.memcpy(x_dev, N * 4, acl.util.numpy_to_ptr(x), N * 4, ACL_MEMCPY_HOST_TO_DEVICE)

acl.mdl.ri_capture_begin(s, 0)
acl.rt.launch_kernel("Relu", [(x_dev, vec, "float32")], [(y_dev, vec, "float32")], None, s)
ret = acl.rt.synchronize_stream(s)          # BUG: s is capturing; its Relu has not run
print("synchronize_stream(s) while capturing returned", ret,
      "(ACL_ERROR_RT_STREAM_CAPTURED)" if ret == ACL_ERROR_RT_STREAM_CAPTURED else "")
print(" ", acl.get_recent_err_msg())
print("synchronize_stream(other), outside the capture, returned", acl.rt.synchronize_stream(other))
model, ret = acl.mdl.ri_capture_end(s)
print("the capture still ends into a model: capture_end returned", ret)

acl.mdl.ri_execute_async(model, other)      # the right place to wait: after the execution
print("after executing the model, synchronize_stream(other) returned",
      acl.rt.synchronize_stream(other))
y = np.zeros(N, np.float32)
acl.rt.memcpy(acl.util.numpy_to_ptr(y), N * 4, y_dev, N * 4, ACL_MEMCPY_DEVICE_TO_HOST)
print("y == relu(x):", bool(np.array_equal(y, np.maximum(x, 0))))
acl.mdl.ri_destroy(model)
acl.finalize()
