"""Helpers the npu_emu tests share: a runtime with a trace recorder, and device tensors. A module
of its own (not conftest.py, which every test folder has) so that ``from npu_emu_testing import``
finds these whatever other conftest a run has loaded."""
import numpy as np

from npu_emu.base.trace import TraceBus, TraceRecorder
from npu_emu.core.kernel_task import tensor_arg
from npu_emu.runtime import Runtime, RuntimeConfig


def make_runtime(**config):
    bus = TraceBus()
    recorder = TraceRecorder()
    bus.subscribe(recorder)
    rt = Runtime(RuntimeConfig(memory_bytes=64 << 20, **config), bus=bus)
    rt.recorder = recorder
    return rt


def vec(rt, values):
    """A device tensor holding ``values``; returns its TensorArg."""
    values = np.ascontiguousarray(values)
    addr = rt.malloc(values.nbytes)
    rt.memcpy(addr, rt.host.register(values), values.nbytes)
    return tensor_arg(addr, values.shape, values.dtype)


def empty(rt, shape, dtype=np.float32):
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    return tensor_arg(rt.malloc(nbytes), shape, dtype)


def read(rt, arg):
    return rt.device().memory.view(arg.addr, arg.shape, arg.dtype).copy()
