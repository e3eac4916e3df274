"""Each test gets a fresh world: its own trace bus (with a recorder) and runtime."""
import pytest

from npu_emu.world import World
from npu_emu_testing import make_runtime


@pytest.fixture
def rt():
    runtime = make_runtime()
    with World(runtime=runtime).entered():
        runtime.set_device(0)
        yield runtime
    runtime.close()
