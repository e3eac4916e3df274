"""Bug class: the wrong stream. The consumer's kernel goes to the default stream, not to the
stream that waits on the producer's event, so nothing orders it after the producer's write."""
import npu_emu.acl as acl

N = 64
acl.init()
acl.rt.set_device(0)
producer, ret = acl.rt.create_stream()
consumer, ret = acl.rt.create_stream()
x, ret = acl.rt.malloc(N * 4, 0)
y, ret = acl.rt.malloc(N * 4, 0)
z, ret = acl.rt.malloc(N * 4, 0)
y_ready, ret = acl.rt.create_event()
acl.rt.launch_kernel("Relu", [(x, (N,), "float32")], [(y, (N,), "float32")], None, producer)
acl.rt.record_event(y_ready, producer)
acl.rt.stream_wait_event(consumer, y_ready)
acl.rt.launch_kernel("Add", [(y, (N,), "float32"), (y, (N,), "float32")],
                     [(z, (N,), "float32")], None, 0)
acl.rt.synchronize_device()
