"""Each test gets a fresh world: its own trace bus (with a recorder) and runtime."""
from contextlib import contextmanager

import pytest

from npu_emu.world import World
from npu_emu_testing import make_runtime


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
