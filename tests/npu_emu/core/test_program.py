"""Kernel binaries (seed 003): a binary loads as a Program whose kernels are found by name and by
tiling key, copied to the device on first use, and launched by function handle; the op-type
launch path stays."""
import json

import numpy as np
import pytest

from npu_emu_testing import empty, read, vec
from npu_emu.base.errors import InvalidHandleError, InvalidParamError, KernelLookupError
from npu_emu.core.program import DEVICE_ALIGN, BinaryFormatError, Program, tiling_key_of

BINARY = json.dumps({"kernels": [
    {"name": "add_custom_8", "kernel": "Add",
     "inputs": [["float32", [8]], ["float32", [8]]], "outputs": [["float32", [8]]]},
    {"name": "add_custom_16", "kernel": "Add",
     "inputs": [["float32", [16]], ["float32", [16]]], "outputs": [["float32", [16]]]},
    {"name": "leaky_relu_3", "kernel": "LeakyRelu", "inputs": [["float32", [8]]],
     "outputs": [["float32", [8]]], "attrs": {"alpha": 0.5}},
]}).encode()


def test_the_tiling_key_is_the_numeric_suffix_of_the_kernel_name():
    assert [tiling_key_of(n) for n in ("add_custom_8", "add_custom", "k_v2", "k_")] == [8, 0, 0, 0]


def test_kernels_are_found_by_name_and_by_tiling_key():
    program = Program(BINARY)
    assert program.kernel_by_name("add_custom_16").tiling_key == 16
    assert program.kernel_by_tiling_key(3).name == "leaky_relu_3"
    assert program.kernel_by_tiling_key(16) is program.kernel_by_name("add_custom_16")
    with pytest.raises(KernelLookupError, match="no kernel 'sub' .*add_custom_8, add_custom_16"):
        program.kernel_by_name("sub")
    with pytest.raises(KernelLookupError, match="tiling key 4 .*keys: 3, 8, 16"):
        program.kernel_by_tiling_key(4)


@pytest.mark.parametrize("data, message", [
    (b"\x7fELF", "not an npu_emu kernel binary"),
    (b'{"kernels": []}', 'no "kernels" list'),
    (b'{"kernels": [{"name": "k", "kernel": "Add"}]}', "kernel 'k': bad or missing field"),
    (json.dumps({"kernels": [{"name": "k", "kernel": "Add", "inputs": [["nope", [2]]],
                              "outputs": []}]}).encode(), "kernel 'k'"),
])
def test_a_bad_binary_is_refused_naming_what_is_wrong(data, message):
    with pytest.raises(BinaryFormatError, match=message):
        Program(data)


def test_the_first_use_copies_the_binary_to_the_device_4k_aligned(rt):
    program = Program(BINARY)
    dev = rt.device()
    free = dev.memory.free_bytes()
    addr = program.load_to_device(dev)
    assert program.load_to_device(dev) == addr and program.dev_size % DEVICE_ALIGN == 0
    assert dev.memory.free_bytes() == free - program.dev_size
    assert dev.memory.read(addr, len(BINARY)) == BINARY
    program.unload()
    assert dev.memory.free_bytes() == free
    with pytest.raises(InvalidHandleError, match="unloaded"):
        program.load_to_device(dev)


def test_a_launch_by_function_runs_the_kernel_it_was_compiled_for(rt):
    program = Program(BINARY)
    s = rt.create_stream()
    a, b = np.arange(8, dtype=np.float32) - 4, np.full(8, 0.5, np.float32)
    x, y, z, w = vec(rt, a), vec(rt, b), empty(rt, (8,)), empty(rt, (8,))
    program.kernel_by_tiling_key(8).launch(s, [x.addr, y.addr, z.addr])
    program.kernel_by_name("leaky_relu_3").launch(s, [z.addr, w.addr])
    assert s.synchronize() == 0
    np.testing.assert_array_equal(read(rt, z), a + b)
    np.testing.assert_array_equal(read(rt, w), np.where(a + b > 0, a + b, 0.5 * (a + b)))
    with pytest.raises(InvalidParamError, match="takes 3 args .*has 2"):
        program.kernel_by_tiling_key(16).launch(s, [x.addr, y.addr])
    s.launch_kernel("Neg", [x], [z])   # the op-type path still launches by name
    assert s.synchronize() == 0
    np.testing.assert_array_equal(read(rt, z), -a)
