"""Bug class: a raise inside a helper. The traceback shows the program's two frames only."""
import npu_emu.acl as acl


def scale(values, factor):
    if factor == 0:
        raise ValueError("factor must not be 0")
    return [v * factor for v in values]


acl.init()
data = [1, 2, 3]
print(scale(data, 2))
print(scale(data, 0))
