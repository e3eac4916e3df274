"""Lesson: a loop inside a model, with labels, across two streams.

Model (aclmdlRI) with a head stream S and a worker stream W (DEFAULT flag, inactive until
activated). Each iteration S activates W (StreamActive), W adds x into acc and records an event,
S bumps the counter, computes index = uint32(counter < N) and waits for W; then
LabelSwitchByIndex jumps back to the loop label (index 1) or on to the exit (index 0).

    gewb devrun sample_models/devrun/label_loop.py --trace loop.json
"""
import numpy as np

import npu_emu.acl as acl
from npu_emu.acl.constants import (ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE,
                                   ACL_MODEL_STREAM_FLAG_DEFAULT, ACL_MODEL_STREAM_FLAG_HEAD)

ITERATIONS = 5
N = 64
UINT32 = 12   # onnx TensorProto.UINT32, Cast's "to"


def device_array(values):
    ptr, _ = acl.rt.malloc(values.nbytes, 0)
    acl.rt.memcpy(ptr, values.nbytes, acl.util.numpy_to_ptr(values), values.nbytes,
                  ACL_MEMCPY_HOST_TO_DEVICE)
    return ptr


acl.init()
acl.rt.set_device(0)
x = np.arange(N, dtype=np.float32)
x_dev = device_array(x)
acc_dev = device_array(np.zeros(N, np.float32))
zero_dev = device_array(np.zeros(1, np.int32))
one_dev = device_array(np.ones(1, np.int32))
limit_dev = device_array(np.array([ITERATIONS], np.int32))
counter_dev = device_array(np.zeros(1, np.int32))
cond_dev, _ = acl.rt.malloc(1, 0)
index_dev, _ = acl.rt.malloc(4, 0)

s, _ = acl.rt.create_stream()
w, _ = acl.rt.create_stream()
model, _ = acl.mdl.ri_build_begin(0)
acl.mdl.ri_bind_stream(model, s, ACL_MODEL_STREAM_FLAG_HEAD)
acl.mdl.ri_bind_stream(model, w, ACL_MODEL_STREAM_FLAG_DEFAULT)
loop, _ = acl.mdl.ri_label_create(model)
done, _ = acl.mdl.ri_label_create(model)
w_done, _ = acl.rt.create_event()

one = (1,)
acl.rt.memcpy_async(counter_dev, 4, zero_dev, 4, 3, s)          # counter = 0 each execution
acl.mdl.ri_label_set(loop, s)
acl.mdl.ri_stream_active(w, s)                                  # W: acc += x, then signal
acl.rt.launch_kernel("Add", [(acc_dev, (N,), "float32"), (x_dev, (N,), "float32")],
                     [(acc_dev, (N,), "float32")], None, w)
acl.rt.record_event(w_done, w)
acl.rt.launch_kernel("Add", [(counter_dev, one, "int32"), (one_dev, one, "int32")],
                     [(counter_dev, one, "int32")], None, s)
acl.rt.launch_kernel("Less", [(counter_dev, one, "int32"), (limit_dev, one, "int32")],
                     [(cond_dev, one, "bool")], None, s)
acl.rt.launch_kernel("Cast", [(cond_dev, one, "bool")], [(index_dev, one, "uint32")],
                     {"to": UINT32}, s)
acl.rt.stream_wait_event(s, w_done)
acl.mdl.ri_label_switch_by_index(index_dev, [done, loop], s)    # 0: exit, 1: loop again
acl.mdl.ri_label_set(done, s)
acl.mdl.ri_end_task(model, s)
acl.mdl.ri_build_end(model, None)

ret = acl.mdl.ri_execute(model, -1)
acc = np.zeros(N, np.float32)
acl.rt.memcpy(acl.util.numpy_to_ptr(acc), acc.nbytes, acc_dev, acc.nbytes,
              ACL_MEMCPY_DEVICE_TO_HOST)
print(f"execute returned {ret}; acc == {ITERATIONS} * x:",
      bool(np.array_equal(acc, ITERATIONS * x)))
acl.mdl.ri_destroy(model)
acl.finalize()
