"""Bug class: a freed buffer. The kernel is launched on a buffer the program already freed."""
import npu_emu.acl as acl

N = 64
acl.init()
acl.rt.set_device(0)
stream, ret = acl.rt.create_stream()
x, ret = acl.rt.malloc(N * 4, 0)
y, ret = acl.rt.malloc(N * 4, 0)
acl.rt.free(y)
acl.rt.launch_kernel("Relu", [(x, (N,), "float32")], [(y, (N,), "float32")], None, stream)
acl.rt.synchronize_stream(stream)
