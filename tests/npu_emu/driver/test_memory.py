"""Device memory: caching allocator, alignment, typed errors, host pointers."""
import numpy as np
import pytest

from npu_emu.base.errors import (ACL_ERROR_RT_MEMORY_ALLOCATION, InvalidParamError,
                                 MemoryAccessError, MemoryFreeError, OutOfMemoryError)
from npu_emu.driver.memory import ALIGNMENT, DEVICE_BASE, DeviceMemory, HostMemory, size_class


def test_addresses_are_aligned_ints_and_views_are_real_memory():
    mem = DeviceMemory(0, 1 << 20)
    a, b = mem.malloc(10), mem.malloc(3000)
    assert a >= DEVICE_BASE and a % ALIGNMENT == 0 and b % ALIGNMENT == 0 and b - a == ALIGNMENT
    mem.view(b, (750,), np.float32)[:] = 1.5
    assert mem.read(b, 8) == np.array([1.5, 1.5], np.float32).tobytes()
    mem.write(a, b"\x01\x02")
    assert mem.view(a, (2,), np.uint8).tolist() == [1, 2]


def test_the_pool_reuses_a_freed_block_of_the_same_size_class():
    mem = DeviceMemory(0, 1 << 20)
    a = mem.malloc(1000)
    mem.free(a)
    assert mem.malloc(700) == a            # same 1024-byte class: straight from the pool
    assert size_class(3 << 20) == 4 << 20  # above 1 MiB: whole 2 MiB pages


def test_out_of_memory_is_typed_and_flushing_the_pool_rescues_fragmentation():
    mem = DeviceMemory(0, 8 * ALIGNMENT)
    blocks = [mem.malloc(ALIGNMENT) for _ in range(8)]
    for addr in blocks:
        mem.free(addr)
    big = mem.malloc(8 * ALIGNMENT)        # only after the cached blocks are coalesced
    assert big == blocks[0]
    with pytest.raises(OutOfMemoryError) as err:
        mem.malloc(1)
    assert err.value.code == ACL_ERROR_RT_MEMORY_ALLOCATION and "cannot allocate" in str(err.value)


def test_access_checks_name_overruns_freed_and_foreign_addresses():
    mem = DeviceMemory(0, 1 << 20)
    a = mem.malloc(100)
    with pytest.raises(MemoryAccessError, match="overruns the allocation"):
        mem.view(a, (26,), np.float32)
    mem.free(a)
    with pytest.raises(MemoryAccessError, match="was freed"):
        mem.read(a, 4)
    with pytest.raises(MemoryAccessError, match="not inside any allocation"):
        mem.read(DEVICE_BASE + 4096, 4)
    with pytest.raises(MemoryFreeError, match="already freed"):
        mem.free(a)
    with pytest.raises(InvalidParamError):
        mem.malloc(0)


def test_memory_blocks_are_the_allocated_bytes_only():
    """What a snapshot saves of a device's memory: each live and cached block's bytes."""
    mem = DeviceMemory(0, 1 << 20)
    a, b = mem.malloc(64), mem.malloc(600)
    mem.view(a, (16,), np.int32)[:] = np.arange(16)
    mem.free(b)
    blocks = mem.blocks()
    assert [(addr, data.size) for addr, data in blocks] == [(a, 512), (b, 1024)]
    assert blocks[0][1][:64].view(np.int32).tolist() == list(range(16))


def test_host_pointers_share_numpy_buffers_and_catch_bad_pointers():
    host = HostMemory()
    arr = np.arange(4, dtype=np.float32)
    p = host.register(arr)
    assert host.register(arr) == p
    host.view(p, (4,), np.float32)[0] = 9
    assert arr[0] == 9
    with pytest.raises(MemoryAccessError):
        host.bytes_view(p, 17)
    q = host.malloc(8)
    host.free(q)
    with pytest.raises(MemoryAccessError):
        host.bytes_view(q, 1)


def test_writes_into_a_constant_block_move_the_epoch_and_no_others_do():
    # The epoch is what lets a kernel reuse what it derived from a loaded model's weights
    # (op_impl/prepared.py): every write that may reach them must move it.
    mem = DeviceMemory(0, 1 << 20)
    weights, other = mem.malloc(4096), mem.malloc(4096)
    generation = mem.generation
    mem.mark_constant(weights + 100)   # any address inside names its block
    assert mem.generation > generation  # kernel tasks learn their outputs' blocks anew
    assert mem.in_constant(weights + 4000) and not mem.in_constant(other)
    epoch = mem.epoch
    mem.write(other, b"\x01" * 8)
    mem.memset(other, 0, 8)
    assert mem.epoch == epoch
    for write in (lambda: mem.write(weights + 8, b"\x01"), lambda: mem.memset(weights, 0, 4),
                  lambda: mem.wrote(weights + 12)):
        write()
        assert mem.epoch != epoch
        epoch = mem.epoch
    mem.free(weights)   # a block reused after a free is nobody's constant
    assert mem.epoch != epoch and not mem.in_constant(weights)
    assert mem.malloc(4096) == weights and not mem.in_constant(weights)


def test_a_constant_view_lies_wholly_in_a_constant_block_of_the_same_buffer():
    mem = DeviceMemory(0, 1 << 20)
    weights, other = mem.malloc(1024), mem.malloc(1024)
    mem.mark_constant(weights)
    buf = mem._buf
    assert mem.holds_constant(mem.view(weights + 512, (128,), np.float32), buf)
    assert not mem.holds_constant(mem.view(other, (4,), np.float32), buf)
    spanning = buf[weights - DEVICE_BASE + 1000:other - DEVICE_BASE + 8]   # past its block
    assert not mem.holds_constant(spanning, buf)
    assert not mem.holds_constant(mem.view(weights, (4,), np.float32), buf.copy())
    epoch = mem.epoch
    mem.release()   # the device reset: nothing it held is anybody's constant
    assert mem.epoch != epoch and not mem.holds_constant(buf[:8], buf)
