"""Lesson: a model that never finishes, a synchronize with a timeout, and the abort.

The model's head stream waits on an event that only the host would record — and it never does.
synchronize_stream_with_timeout gives up after 5 ms of device time with
ACL_ERROR_RT_STREAM_SYNC_TIMEOUT (507046) and aborts the model (aclmdlRIAbort semantics); the
next synchronize reports ACL_ERROR_RT_MODEL_ABORT_NORMAL (507023), and the device goes on
working.

    gewb devrun sample_models/devrun/timeout.py
"""
import npu_emu.acl as acl
from npu_emu.acl.constants import ACL_MODEL_STREAM_FLAG_HEAD

acl.init()
acl.rt.set_device(0)
head, _ = acl.rt.create_stream()
exec_stream, _ = acl.rt.create_stream()
other, _ = acl.rt.create_stream()
never, _ = acl.rt.create_event()
buf, _ = acl.rt.malloc(1024, 0)

model, _ = acl.mdl.ri_build_begin(0)
acl.mdl.ri_bind_stream(model, head, ACL_MODEL_STREAM_FLAG_HEAD)
acl.rt.stream_wait_event(head, never)
acl.mdl.ri_end_task(model, head)
acl.mdl.ri_build_end(model, None)

acl.mdl.ri_execute_async(model, exec_stream)
print("synchronize with a 5 ms timeout:", acl.rt.synchronize_stream_with_timeout(exec_stream, 5))
print("synchronize again:", acl.rt.synchronize_stream(exec_stream))
acl.rt.launch_kernel("Relu", [(buf, (256,), "float32")], [(buf, (256,), "float32")], None, other)
print("the device still works:", acl.rt.synchronize_stream(other) == 0)
acl.finalize()
