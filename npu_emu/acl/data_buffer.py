"""aclDataBuffer: a device buffer (address and size) handed to a model as one input or output.
pyACL's calls return the value itself, not a (value, ret) pair, as the real ones do."""
from __future__ import annotations

from dataclasses import dataclass

from npu_emu.acl._call import acl_call, rt


@dataclass
class DataBuffer:
    addr: int
    size: int


def data_buffer(handle: int) -> DataBuffer:
    return rt().resolve(handle, DataBuffer)


def create_data_buffer(data: int, size: int) -> int:
    return rt().handle(DataBuffer(data, size))


def get_data_buffer_addr(buffer: int) -> int:
    return data_buffer(buffer).addr


def get_data_buffer_size(buffer: int) -> int:
    return data_buffer(buffer).size


get_data_buffer_size_v2 = get_data_buffer_size


@acl_call()
def update_data_buffer(buffer: int, data: int, size: int) -> int:
    target = data_buffer(buffer)
    target.addr, target.size = data, size
    return 0


@acl_call()
def destroy_data_buffer(buffer: int) -> int:
    data_buffer(buffer)
    del rt().handles[buffer]   # the handle is dead: using it again is an invalid handle
    return 0
