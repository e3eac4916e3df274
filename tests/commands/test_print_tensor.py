"""`print tensor 0xADDR [SHAPE] [DTYPE]` (issue 15): the dtype and shape as the IR prints them, in
any of the spellings a user meets; only the allocation that holds ADDR is read, and a large
tensor is summarised as numpy does."""
from pathlib import Path

import numpy as np
import pytest

from workbench.commands.session import DebugSession
from workbench.debugger.outcomes import Error, Printed

ROOT = Path(__file__).resolve().parents[2]
# What sample_models/devrun/producer_consumer.py copies into its first allocation (1024 bytes).
X = np.linspace(-1, 1, 256, dtype=np.float32)


@pytest.fixture(scope="module")
def parked():
    """producer_consumer.py parked at its stream wait: x is in device memory."""
    s = DebugSession(base_dir=ROOT)
    for line in ["target sample_models/devrun/producer_consumer.py", "break wait event",
                 "continue"]:
        s.execute(line)
    blocks = s.debugger.run.world.runtime.device(0).memory.live_blocks()
    yield s, blocks[0]
    s.close()


def _print(s: DebugSession, line: str) -> Printed | Error:
    (out,) = s.execute(line)
    return out


@pytest.mark.parametrize("spec, shape, dtype", [
    ("f32", "f32[256]", np.float32),
    ("float32", "f32[256]", np.float32),
    ("DT_FLOAT", "f32[256]", np.float32),
    ("[1,4]", "f32[1,4]", np.float32),
    ("[1, 4] f32", "f32[1,4]", np.float32),
    ("f32 [1, 4]", "f32[1,4]", np.float32),
    ("f32[2,2]", "f32[2,2]", np.float32),
    ("(4,)", "f32[4]", np.float32),
    ("4 f32", "f32[4]", np.float32),
    ("f32[?]", "f32[256]", np.float32),
    ("-1", "f32[256]", np.float32),
    ("i32[2,?]", "i32[2,128]", np.int32),
    ("u8[?]", "u8[1024]", np.uint8),
    ("i16[8]", "i16[8]", np.int16),
    ("DT_INT16 [2, 2]", "i16[2,2]", np.int16),
    ("float64[?]", "f64[128]", np.float64),
])
def test_dtype_and_shape_as_the_ir_prints_them(parked, spec, shape, dtype):
    s, (addr, size) = parked
    out = _print(s, f"print tensor {addr:#x} {spec}")
    assert isinstance(out, Printed), out
    assert out.text.splitlines()[0] == f"tensor {addr:#x}: {shape} (device 0 memory)"
    n = int(np.prod([int(d) for d in shape.partition("[")[2][:-1].split(",")]))
    # the summary line: numpy's statistics of the bytes the program wrote, read as dtype
    f = X.view(np.uint8).view(dtype)[:n].astype(np.float64)
    assert out.text.splitlines()[1] == (f"  min {f.min():.5g} max {f.max():.5g} "
                                        f"mean {f.mean():.5g} std {f.std():.5g}")


def test_the_values_are_the_programs(parked):
    s, (addr, _) = parked
    out = _print(s, f"print tensor {addr + 4 * 252:#x} f32[4]")
    shown = out.text.splitlines()[-1]
    assert shown == np.array2string(X[252:], precision=5, suppress_small=True)


def test_a_large_tensor_is_summarised(parked):
    s, (addr, size) = parked
    out = _print(s, f"print tensor {addr:#x} u8")
    assert out.text.splitlines()[0].endswith(f"u8[{size}] (device 0 memory)")
    assert "..." in out.text and len(out.text.splitlines()) <= 12


@pytest.mark.parametrize("spec, message", [
    ("[1,300]", "f32[1,300] is 1200 bytes, but the allocation at {addr:#x} holds 1024 from "
                "{addr:#x}"),
    ("f64[129]", "f64[129] is 1032 bytes, but the allocation"),
    ("[100000000000000]", "is 400000000000000 bytes, but the allocation"),
    ("floaty", "no dtype 'floaty' (the IR's f32, f16,"),
    ("f32 i8", "one dtype and one shape, not f32 and i8"),
    ("[?,?]", "at most one dim can be ?"),
    ("[1,-2]", "'-2' is not a dim"),
    ("str[4]", "no dtype 'str'"),
])
def test_bad_specs_and_past_the_allocation_are_one_line(parked, spec, message):
    s, (addr, _) = parked
    out = _print(s, f"print tensor {addr:#x} {spec}")
    assert isinstance(out, Error), out
    assert message.format(addr=addr) in out.message and "\n" not in out.message


def test_an_address_in_no_allocation_is_one_line(parked):
    """What dumped all 2 GiB of device memory before: -1 from an address past every block."""
    s, (addr, size) = parked
    blocks = s.debugger.run.world.runtime.device(0).memory.live_blocks()
    beyond = blocks[-1][0] + blocks[-1][1] + 64
    out = _print(s, f"print tensor {beyond:#x} -1")
    assert out == Error(f"print tensor {beyond:#x}: not inside a live allocation "
                        f"(`info memory` lists them)")
    out = _print(s, f"print tensor {addr + size - 4:#x} -1")
    assert out.text.splitlines()[0].endswith("f32[1] (device 0 memory)")
    assert _print(s, "print tensor 0xfoo").message.endswith("not an address (0x... as "
                                                            "`info memory` lists them)")
