"""aclDataBuffer: a device buffer (address and size) handed to a model as one input or output.
pyACL's calls return the value itself, not a (value, ret) pair, as the real ones do; a failed one
returns what the C call returns then (NULL: 0)."""
from __future__ import annotations

from dataclasses import dataclass

from npu_emu.acl._call import acl_call, acl_value, rt
from npu_emu.acl.c_types import Handle, Size, UInt64
from npu_emu.snapshot.codec import INT
from npu_emu.snapshot.schema import api_handle


@api_handle({"addr": INT, "size": INT})
@dataclass
class DataBuffer:
    addr: int
    size: int


def data_buffer(handle: int) -> DataBuffer:
    return rt().resolve(handle, DataBuffer)


@acl_value(0)
def create_data_buffer(data: UInt64, size: Size) -> int:
    """``data`` may be NULL (0) with ``size`` 0: an empty buffer, as aclCreateDataBuffer
    allows; where it points is checked when a model uses it."""
    return rt().handle(DataBuffer(data, size))


@acl_value(0)
def get_data_buffer_addr(buffer: Handle) -> int:
    return data_buffer(buffer).addr


@acl_value(0)
def get_data_buffer_size(buffer: Handle) -> int:
    return data_buffer(buffer).size


get_data_buffer_size_v2 = get_data_buffer_size


@acl_call()
def update_data_buffer(buffer: Handle, data: UInt64, size: Size) -> int:
    target = data_buffer(buffer)
    target.addr, target.size = data, size
    return 0


@acl_call()
def destroy_data_buffer(buffer: Handle) -> int:
    rt().release(buffer, DataBuffer)   # using the handle again is an invalid handle
    return 0
