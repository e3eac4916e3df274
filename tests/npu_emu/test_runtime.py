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


def test_a_discarded_worlds_devices_let_go_of_their_memory():
    world = World(RuntimeConfig(device_count=1, memory_bytes=1 << 20))
    device = world.runtime.set_device(0)
    addr = device.memory.malloc(4096)
    world.discard()
    assert device.memory.capacity == 0 and device.memory.block_of(addr) is None


def test_a_reset_device_lets_go_of_its_memory_though_its_streams_handles_remain():
    """aclrtResetDevice frees the device's memory: a destroyed stream's handle still reaches
    the device, but not its 2 GiB reservation."""
    import weakref
    rt = Runtime(RuntimeConfig(device_count=1, memory_bytes=1 << 20))
    device = rt.set_device(0)
    stream = rt.create_stream()
    buffer = weakref.ref(device.memory._buf)
    rt.reset_device(0)
    assert stream.device is device and buffer() is None and device.memory.capacity == 0


def test_the_current_context_is_the_calling_threads():
    """The runtime's current context is thread-local (curCtx_, inner_thread_local.hpp): a new
    thread starts with none, and what it sets never changes another thread's."""
    import threading
    rt = Runtime(RuntimeConfig(device_count=2, memory_bytes=1 << 20))
    rt.set_device(0)
    main = rt.context()
    seen = {}

    def worker():
        seen["at start"] = rt.current_context
        try:
            rt.create_stream()
        except ContextError as exc:
            seen["error"] = str(exc)
        rt.set_device(1)
        seen["own"] = rt.create_context(1)
        seen["current"] = rt.context()

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen["at start"] is None and "no current context in this thread" in seen["error"]
    assert seen["current"] is seen["own"] and seen["own"].device.id == 1
    assert rt.context() is main and main.device.id == 0
    rt.destroy_context(seen["own"])   # another thread's context, destroyed from this one
    assert rt.context() is main


def test_the_runtime_is_the_one_object_behind_the_acl_api_and_ge():
    """Seed 003 §1.3.1: the runtime's global object owns devices, contexts and handles, and every
    API reaches the same one: a stream made through acl.rt is the runtime's, GE's ModelManager
    lives in the same world, and another world sees none of it."""
    from ge_core.runtime.v1.model_manager import ModelManager
    from npu_emu import acl
    from npu_emu.core.stream import Stream

    first = World()
    with first.entered():
        assert acl.rt.set_device(0) == 0
        handle, ret = acl.rt.create_stream()
        assert ret == 0
        stream = current_runtime().resolve(handle, Stream)
        assert stream in current_runtime().device(0).scheduler.streams
        manager = ModelManager.get_instance()
        assert manager is first.instance(ModelManager)   # GE's singleton: this world's
    with World().entered():
        assert ModelManager.get_instance() is not manager
        acl.rt.set_device(0)
        assert acl.rt.destroy_stream(handle) != 0     # not a handle in this world
    with first.entered():
        assert acl.rt.destroy_stream(handle) == 0
        acl.rt.reset_device(0)
