"""Lesson: a wait nobody satisfies.

The consumer stream waits on an event that no stream ever records (the record was forgotten), so
it can never proceed: synchronizing it would hang a real device until the stream-sync timeout.
The emulator sees that no stream can make progress and reports the wait-for chain instead.

    gewb devrun sample_models/devrun/deadlock.py
"""
import npu_emu.acl as acl

acl.init()
acl.rt.set_device(0)
producer, ret = acl.rt.create_stream()
consumer, ret = acl.rt.create_stream()
buf, ret = acl.rt.malloc(1024, 0)
done, ret = acl.rt.create_event()

acl.rt.launch_kernel("Relu", [(buf, (256,), "float32")], [(buf, (256,), "float32")], None,
                     producer)
# BUG: acl.rt.record_event(done, producer) was forgotten
acl.rt.stream_wait_event(consumer, done)
acl.rt.launch_kernel("Neg", [(buf, (256,), "float32")], [(buf, (256,), "float32")], None,
                     consumer)
ret = acl.rt.synchronize_stream(consumer)
print("synchronize_stream(consumer) returned", ret)
acl.finalize()
