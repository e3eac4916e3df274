"""``acl.rt``: devices, contexts, streams, memory, events, notifies, callbacks, kernels.

Parameters carry their C types (npu_emu/acl/c_types.py): the wrapper refuses a value that cannot
be one with ACL_ERROR_INVALID_PARAM before the call runs.
"""
from __future__ import annotations

from npu_emu.acl._call import acl_call, rt
from npu_emu.acl.c_types import (Attrs, Callback, Handle, Int32, Opaque, OutputArgs, PositiveSize,
                                 Ptr, Size, StreamHandle, TensorArgs, Text, UInt32)
from npu_emu.acl.constants import (ACL_EVENT_RECORDED_STATUS_COMPLETE,
                                   ACL_EVENT_RECORDED_STATUS_NOT_READY,
                                   ACL_MEMCPY_DEVICE_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST,
                                   ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_HOST_TO_HOST,
                                   ACL_STREAM_STATUS_COMPLETE, ACL_STREAM_STATUS_NOT_READY)
from npu_emu.base.errors import ACL_ERROR_INVALID_PARAM, InvalidHandleError, InvalidParamError
from npu_emu.core.context import Context
from npu_emu.core.event import Event
from npu_emu.core.notify import Notify
from npu_emu.core.stream import Stream

_HOST_SIDE = {ACL_MEMCPY_HOST_TO_HOST: (True, True), ACL_MEMCPY_HOST_TO_DEVICE: (True, False),
              ACL_MEMCPY_DEVICE_TO_HOST: (False, True), ACL_MEMCPY_DEVICE_TO_DEVICE: (False, False)}


def stream_of(handle: int) -> Stream:
    """A stream handle; 0 is the current context's default stream."""
    return rt().default_stream() if handle == 0 else rt().resolve(handle, Stream)


def _check_copy(dst: int, dest_max: int, src: int, count: int, kind: int) -> None:
    if kind not in _HOST_SIDE:   # aclrtMemcpy refuses an unknown kind itself (MemcpyKindTranslate)
        raise InvalidParamError(f"memcpy kind {kind}", ACL_ERROR_INVALID_PARAM)
    if count > dest_max:
        raise InvalidParamError(f"memcpy of {count} bytes into a destination of {dest_max}")
    host = rt().host
    src_host, dst_host = _HOST_SIDE[kind]
    if host.is_host(src) != src_host or host.is_host(dst) != dst_host:
        raise InvalidParamError(f"memcpy kind {kind} does not match where {dst:#x} and "
                                f"{src:#x} live")


# -- devices and contexts ----------------------------------------------------------------------
@acl_call()
def set_device(device_id: Int32) -> int:
    rt().set_device(device_id)
    return 0


@acl_call()
def reset_device(device_id: Int32) -> int:
    rt().reset_device(device_id)
    return 0


@acl_call(1)
def get_device() -> tuple[int, int]:
    return rt().context().device.id, 0


@acl_call(1)
def get_device_count() -> tuple[int, int]:
    return rt().config.device_count, 0


@acl_call(1)
def create_context(device_id: Int32) -> tuple[int, int]:
    return rt().handle(rt().create_context(device_id)), 0


@acl_call()
def destroy_context(context: Handle) -> int:
    rt().destroy_context(rt().resolve(context, Context))
    return 0


@acl_call()
def set_context(context: Handle) -> int:
    rt().current_context = rt().resolve(context, Context)
    return 0


@acl_call(1)
def get_context() -> tuple[int, int]:
    return rt().handle(rt().context()), 0


@acl_call()
def synchronize_device() -> int:
    return rt().device().synchronize()


# -- streams -----------------------------------------------------------------------------------
@acl_call(1)
def create_stream() -> tuple[int, int]:
    return rt().handle(rt().create_stream()), 0


@acl_call(1)
def create_stream_with_config(priority: UInt32 = 0, flag: UInt32 = 0) -> tuple[int, int]:
    return rt().handle(rt().create_stream(priority)), 0


@acl_call()
def destroy_stream(stream: Handle) -> int:
    s = stream_of(stream)
    if s.context is None:   # the runtime's own (a model's, a capture's): not the caller's
        raise InvalidHandleError(f"stream {s.label} belongs to the runtime, not to a context")
    s.context.destroy_stream(s)
    return 0


@acl_call()
def synchronize_stream(stream: StreamHandle) -> int:
    return stream_of(stream).synchronize()


@acl_call()
def synchronize_stream_with_timeout(stream: StreamHandle, timeout: Int32) -> int:
    """``timeout`` in ms of device time; -1 waits forever, 0 polls, below -1 is invalid."""
    if timeout < -1:
        raise InvalidParamError(f"synchronize timeout {timeout} ms (-1 or more)")
    return stream_of(stream).synchronize(timeout)


@acl_call(1)
def stream_query(stream: StreamHandle) -> tuple[int, int]:
    done = stream_of(stream).query()
    return (ACL_STREAM_STATUS_COMPLETE if done else ACL_STREAM_STATUS_NOT_READY), 0


# -- memory ------------------------------------------------------------------------------------
@acl_call(1)
def malloc(size: PositiveSize, policy: Int32 = 0) -> tuple[int, int]:
    return rt().malloc(size), 0


@acl_call()
def free(dev_ptr: Ptr) -> int:
    rt().free(dev_ptr)
    return 0


@acl_call(1)
def malloc_host(size: PositiveSize) -> tuple[int, int]:
    return rt().host.malloc(size), 0


@acl_call()
def free_host(host_ptr: Ptr) -> int:
    rt().host.free(host_ptr)
    return 0


@acl_call()
def memcpy(dst: Ptr, dest_max: Size, src: Ptr, count: Size, kind: Int32) -> int:
    if count == 0:   # aclrtMemcpy: nothing to copy is success, whatever the pointers
        return 0
    _check_copy(dst, dest_max, src, count, kind)
    rt().memcpy(dst, src, count)
    return 0


@acl_call()
def memcpy_async(dst: Ptr, dest_max: Size, src: Ptr, count: Size, kind: Int32,
                 stream: StreamHandle) -> int:
    # The stream is resolved before the nothing-to-copy shortcut: a destroyed stream (or one
    # whose device was reset) is an invalid handle even for an empty copy, never success.
    target = stream_of(stream)
    if count == 0:
        return 0
    _check_copy(dst, dest_max, src, count, kind)
    target.memcpy_async(dst, src, count)
    return 0


@acl_call()
def memset(dev_ptr: Ptr, max_count: Size, value: Int32, count: Size) -> int:
    """Sets ``count`` bytes to ``value``'s low byte, as the driver's drvMemsetD8 does."""
    if count == 0:
        return 0
    if count > max_count:
        raise InvalidParamError(f"memset of {count} bytes into {max_count}")
    rt().device().host_memset(dev_ptr, value & 0xFF, count)
    return 0


@acl_call(2)
def get_mem_info(attr: Int32 = 0) -> tuple[int, int, int]:
    mem = rt().device().memory
    return mem.free_bytes(), mem.capacity, 0


# -- events and notifies -----------------------------------------------------------------------
@acl_call(1)
def create_event() -> tuple[int, int]:
    return rt().handle(rt().create_event()), 0


@acl_call()
def destroy_event(event: Handle) -> int:
    rt().resolve(event, Event).destroyed = True
    return 0


@acl_call()
def record_event(event: Handle, stream: StreamHandle) -> int:
    stream_of(stream).record_event(rt().resolve(event, Event))
    return 0


@acl_call()
def stream_wait_event(stream: StreamHandle, event: Handle) -> int:
    stream_of(stream).wait_event(rt().resolve(event, Event))
    return 0


@acl_call()
def reset_event(event: Handle, stream: StreamHandle) -> int:
    stream_of(stream).reset_event(rt().resolve(event, Event))
    return 0


@acl_call(1)
def query_event_status(event: Handle) -> tuple[int, int]:
    done = rt().resolve(event, Event).query()
    return (ACL_EVENT_RECORDED_STATUS_COMPLETE if done
            else ACL_EVENT_RECORDED_STATUS_NOT_READY), 0


@acl_call()
def synchronize_event(event: Handle) -> int:
    rt().resolve(event, Event).synchronize()
    return 0


@acl_call(1)
def event_elapsed_time(start: Handle, end: Handle) -> tuple[float, int]:
    return rt().resolve(start, Event).elapsed_ms(rt().resolve(end, Event)), 0


@acl_call(1)
def create_notify(device_id: Int32 = 0) -> tuple[int, int]:
    return rt().handle(rt().device(device_id).create_notify()), 0


@acl_call()
def record_notify(notify: Handle, stream: StreamHandle) -> int:
    stream_of(stream).record_notify(rt().resolve(notify, Notify))
    return 0


@acl_call()
def wait_and_reset_notify(notify: Handle, stream: StreamHandle, timeout: UInt32 = 0) -> int:
    stream_of(stream).wait_notify(rt().resolve(notify, Notify))
    return 0


# -- work --------------------------------------------------------------------------------------
@acl_call()
def launch_callback(fn: Callback, user_data: Opaque, block_type: Int32,
                    stream: StreamHandle) -> int:
    stream_of(stream).launch_callback(fn, user_data)
    return 0


@acl_call()
def launch_kernel(op_type: Text, inputs: TensorArgs, outputs: OutputArgs, attrs: Attrs,
                  stream: StreamHandle) -> int:
    """The emulator's aclrtLaunchKernel: the kernel by name, and an args table of
    ``(dev_ptr, shape, dtype)`` per input (None for an absent optional one) and output."""
    stream_of(stream).launch_kernel(op_type, inputs, outputs, attrs)
    return 0
