"""Bug class: an unpacked handle. create_stream returns (stream, ret); the program keeps the
pair, so every call given `s` fails with ACL_ERROR_INVALID_PARAM and nothing runs."""
import numpy as np

import npu_emu.acl as acl

acl.init()
acl.rt.set_device(0)
s = acl.rt.create_stream()
x, ret = acl.rt.malloc(64, 0)
acl.rt.launch_kernel("Relu", [(x, (16,), "float32")], [(x, (16,), "float32")], None, s)
acl.rt.synchronize_stream(s)
print("done:", np.float32(0))
