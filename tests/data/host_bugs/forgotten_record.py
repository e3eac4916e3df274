"""Bug class: a forgotten record. The consumer waits on an event the producer never records,
so the consumer blocks forever and the synchronize can never finish."""
import npu_emu.acl as acl

N = 64
acl.init()
acl.rt.set_device(0)
producer, ret = acl.rt.create_stream()
consumer, ret = acl.rt.create_stream()
x, ret = acl.rt.malloc(N * 4, 0)
y, ret = acl.rt.malloc(N * 4, 0)
y_ready, ret = acl.rt.create_event()
acl.rt.launch_kernel("Relu", [(x, (N,), "float32")], [(y, (N,), "float32")], None, producer)
acl.rt.stream_wait_event(consumer, y_ready)
acl.rt.launch_kernel("Neg", [(y, (N,), "float32")], [(x, (N,), "float32")], None, consumer)
acl.rt.synchronize_stream(consumer)
