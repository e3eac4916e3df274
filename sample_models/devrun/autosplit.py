"""Lesson: AutoSplit, and what happens without it.

A model stream with 20 SQEs. With AutoSplit (the default) the SQEs wait in a host buffer, and
because this lesson shrinks HOST_SQ_MAX_COUNT to 8, the runtime creates slave streams, each
activated by a StreamActive at the end of the one before; everything reaches the device at
LoadComplete. Without AutoSplit the SQEs go straight into the bound stream's device SQ, which
here holds 16: the 17th launch fails with ACL_ERROR_RT_STREAM_TASK_FULL (507002).

    gewb devrun sample_models/devrun/autosplit.py --trace autosplit.json
"""
import numpy as np

import npu_emu.acl as acl
from npu_emu.acl.constants import (ACL_ERROR_RT_STREAM_TASK_FULL, ACL_MEMCPY_DEVICE_TO_HOST,
                                   ACL_MEMCPY_HOST_TO_DEVICE, ACL_MODEL_STREAM_FLAG_HEAD)
from npu_emu.world import current_runtime

TASKS = 20
N = 16

current_runtime().configure(host_sq_max_count=8, auto_split_reserve=1, sq_depth=16)
acl.init()
acl.rt.set_device(0)
x = np.arange(N, dtype=np.float32)
x_dev, _ = acl.rt.malloc(x.nbytes, 0)
acc_dev, _ = acl.rt.malloc(x.nbytes, 0)
acl.rt.memcpy(x_dev, x.nbytes, acl.util.numpy_to_ptr(x), x.nbytes, ACL_MEMCPY_HOST_TO_DEVICE)


def build(model):
    """acc = 0, then TASKS - 2 times acc += x, then EndGraph: TASKS SQEs on one stream."""
    stream, _ = acl.rt.create_stream()
    acl.mdl.ri_bind_stream(model, stream, ACL_MODEL_STREAM_FLAG_HEAD)
    vec = [(acc_dev, (N,), "float32")]
    ret = acl.rt.launch_kernel("Sub", vec + vec, vec, None, stream)
    for _ in range(TASKS - 2):
        ret = ret or acl.rt.launch_kernel("Add", vec + [(x_dev, (N,), "float32")], vec, None,
                                          stream)
    return ret or acl.mdl.ri_end_task(model, stream)


model, _ = acl.mdl.ri_build_begin(0)
assert build(model) == 0
acl.mdl.ri_build_end(model, None)
assert acl.mdl.ri_execute(model, -1) == 0
acc = np.zeros(N, np.float32)
acl.rt.memcpy(acl.util.numpy_to_ptr(acc), acc.nbytes, acc_dev, acc.nbytes,
              ACL_MEMCPY_DEVICE_TO_HOST)
print("AutoSplit: acc == 18 * x:", bool(np.array_equal(acc, (TASKS - 2) * x)))

plain = current_runtime().model_build_begin(auto_split=False)
ret = build(current_runtime().handle(plain))
print("without AutoSplit the launch returns", ret,
      "(ACL_ERROR_RT_STREAM_TASK_FULL)" if ret == ACL_ERROR_RT_STREAM_TASK_FULL else "")
print(" ", acl.get_recent_err_msg())
acl.finalize()
