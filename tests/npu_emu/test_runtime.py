"""One world per run: the runtime is an instance reached through current_runtime()."""
import pytest

from npu_emu.base.errors import ContextError, InvalidDeviceError, InvalidParamError
from npu_emu.core.context import Context
from npu_emu.runtime import Runtime, RuntimeConfig
from npu_emu.world import World, current_runtime


def test_entered_worlds_scope_the_current_runtime():
    a, b = Runtime(), Runtime()
    with World(runtime=a).entered():
        assert current_runtime() is a
        with World(runtime=b).entered():
            assert current_runtime() is b
        assert current_runtime() is a


def test_devices_contexts_and_default_streams():
    rt = Runtime(RuntimeConfig(device_count=2, memory_bytes=1 << 20))
    with pytest.raises(ContextError):
        rt.create_stream()
    d1 = rt.set_device(1)
    assert rt.context().primary and rt.context().device is d1
    ctx = rt.create_context(1)
    assert isinstance(ctx, Context) and rt.current_context is ctx
    assert ctx.default_stream is not rt.contexts[0].default_stream
    with pytest.raises(InvalidDeviceError):
        rt.set_device(2)
    with pytest.raises(InvalidParamError, match="before setting a device"):
        rt.configure(sq_depth=8)
    rt.destroy_context(ctx)
    rt.reset_device(1)
    assert rt.devices == {} and rt.current_context is None
