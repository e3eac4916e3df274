"""A kernel task's device-memory views: kept across runs of the same task, checked again after
any malloc or free, and handed to a ``writes_out`` kernel as its output buffers."""
import numpy as np
import pytest

from npu_emu_testing import empty, read, vec
from npu_emu.base.errors import MemoryAccessError


def test_a_writes_out_kernel_writes_device_memory_itself(rt):
    seen = []

    def double(x, out=None):
        seen.append(out)
        np.multiply(x, 2, out=out[0])
        return (out[0],)

    double.writes_out = True
    rt.kernels.register("Double", double)
    s = rt.create_stream()
    x, y = vec(rt, np.arange(4, dtype=np.float32)), empty(rt, (4,))
    task = s.launch_kernel("Double", [x], [y])
    s.synchronize()
    assert read(rt, y).tolist() == [0, 2, 4, 6]
    # out[0] was a view of device memory at y, not a host array copied afterwards
    assert np.shares_memory(seen[0][0], rt.device().memory.view(y.addr, y.shape, y.dtype))
    assert task.op_type == "Double"


def test_views_are_checked_again_after_a_free(rt):
    s = rt.create_stream()
    x, y = vec(rt, np.arange(4, dtype=np.float32)), empty(rt, (4,))
    task = s.launch_kernel("Neg", [x], [y])
    s.synchronize()
    assert read(rt, y).tolist() == [0, -1, -2, -3]
    rt.free(y.addr)
    with pytest.raises(MemoryAccessError, match="freed"):
        task.complete(rt.device().scheduler, s)


def test_a_kernel_or_a_copy_writing_into_a_constant_block_moves_the_epoch(rt):
    s = rt.create_stream()
    memory = rt.device().memory
    x, y = vec(rt, np.arange(4, dtype=np.float32)), empty(rt, (4,))
    weights = vec(rt, np.ones(4, np.float32))
    memory.mark_constant(weights.addr)
    epoch = memory.epoch
    s.launch_kernel("Neg", [weights], [y])   # reads the constants: no move
    s.synchronize()
    assert memory.epoch == epoch
    s.launch_kernel("Neg", [x], [weights])   # writes them
    s.synchronize()
    assert memory.epoch != epoch and read(rt, weights).tolist() == [0, -1, -2, -3]
    epoch = memory.epoch
    s.memcpy_async(weights.addr, x.addr, 16)
    s.synchronize()
    assert memory.epoch != epoch
    epoch = memory.epoch
    rt.memcpy(weights.addr, rt.host.register(np.zeros(4, np.float32)), 16)
    assert memory.epoch != epoch
