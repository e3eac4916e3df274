"""Lesson: AutoSplit on a chip that has it, and what a chip without it does.

A model stream with 20 SQEs, built by hand (aclmdlRI). On a 950-class chip the runtime has
AutoSplit (the persistent-stream unlimited-depth feature): the SQEs wait in a host buffer, and
because this lesson shrinks HOST_SQ_MAX_COUNT to 48, a stream is full at 7 SQEs (7 + the next
+ 32 reserved + the 950's 8 for the stream extension reach 48); the runtime creates slave
streams, each activated by a StreamActive at the end of the one before, and everything reaches
the device at LoadComplete. A 910B has no AutoSplit: the SQEs go straight into the bound
stream's device SQ, which here holds 16, and the 17th launch fails with
ACL_ERROR_RT_STREAM_TASK_FULL (507002); that is why GE splits long streams itself when it
builds for a 910B (SplitStreams, maxTaskNumPerStream).

    gewb devrun sample_models/devrun/autosplit.py --soc-version Ascend950
"""
import numpy as np

import npu_emu.acl as acl
from npu_emu.acl.constants import (ACL_ERROR_RT_STREAM_TASK_FULL, ACL_MEMCPY_DEVICE_TO_HOST,
                                   ACL_MEMCPY_HOST_TO_DEVICE, ACL_MODEL_STREAM_FLAG_HEAD)
from npu_emu.world import current_runtime

TASKS = 20
N = 16

current_runtime().configure(host_sq_max_count=48, sq_depth=16)
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
ret = build(model)
if ret == 0:
    acl.mdl.ri_build_end(model, None)
    assert acl.mdl.ri_execute(model, -1) == 0
    acc = np.zeros(N, np.float32)
    acl.rt.memcpy(acl.util.numpy_to_ptr(acc), acc.nbytes, acc_dev, acc.nbytes,
                  ACL_MEMCPY_DEVICE_TO_HOST)
    print(acl.get_soc_name(), "(AutoSplit): acc == 18 * x:",
          bool(np.array_equal(acc, (TASKS - 2) * x)))
else:
    print(acl.get_soc_name(), "(no AutoSplit): the launch returns", ret,
          "(ACL_ERROR_RT_STREAM_TASK_FULL)" if ret == ACL_ERROR_RT_STREAM_TASK_FULL else "")
    print(" ", acl.get_recent_err_msg())
acl.finalize()
