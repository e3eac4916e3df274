"""Each test gets a fresh world: its own trace bus (with a recorder) and runtime."""
from contextlib import contextmanager

import numpy as np
import pytest

from npu_emu.kernel_task import tensor_arg
from npu_emu.runtime import Runtime, RuntimeConfig
from npu_emu.trace import TraceBus, TraceRecorder
from npu_emu.world import World


def make_runtime(**config):
    bus = TraceBus()
    recorder = TraceRecorder()
    bus.subscribe(recorder)
    rt = Runtime(RuntimeConfig(memory_bytes=64 << 20, **config), bus=bus)
    rt.recorder = recorder
    return rt


@contextmanager
def _device_set(**config):
    runtime = make_runtime(**config)
    with World(runtime=runtime).entered():
        runtime.set_device(0)
        yield runtime
    runtime.close()


@pytest.fixture
def rt():
    """The default chip's runtime (a 910B: no AutoSplit)."""
    with _device_set() as runtime:
        yield runtime


@pytest.fixture
def rt950():
    """A 950's runtime: model streams grow by AutoSplit."""
    with _device_set(soc_version="Ascend950") as runtime:
        yield runtime


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
