"""The weight buffer as built: the Consts' own arrays at their offsets, each copied once to where
it goes (a device's weight segment, an OM file), never joined at build."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ge_core.atc import atc
from ge_core.compiler import CompileOptions
from ge_core.compiler.model_builder import BuildOptions
from ge_core.graph.attr_names import ATTR_NAME_WEIGHTS
from ge_core.om import load_om_bytes, om_bytes
from ge_core.om.weights import Weights, weight_offset
from ge_core.parser import parse_onnx
from ge_core.runtime.model_memory import host_to_device
from npu_emu.driver.events import HostMemAccess
from npu_emu.runtime import RuntimeConfig
from npu_emu.world import World

TINY = Path(__file__).resolve().parents[2] / "sample_models" / "tiny_cnn.onnx"



def raw(data: bytes) -> np.ndarray:
    return np.frombuffer(data, np.uint8)


def test_a_buffer_is_its_pieces_at_their_offsets_with_zeros_between_and_later_over_earlier():
    laid = Weights([(2, raw(b"ab")), (6, raw(b"cdef")), (7, raw(b"XY"))], 12)
    assert bytes(laid) == b"\0\0ab\0\0cXYf\0\0"
    apart = Weights([(2, raw(b"ab")), (6, raw(b"cd"))], 10)
    # apart, the parts a join copies are the pieces themselves and the gaps
    assert [bytes(p) for p in apart.buffers()] == [b"\0\0", b"ab", b"\0\0", b"cd", b"\0\0"]
    for w in (laid, apart):
        out = np.full(len(w), 0xEE, np.uint8)   # stale bytes where the gaps go
        w.copy_into(out)
        assert out.tobytes() == bytes(w)


def test_buffers_are_equal_by_their_bytes_whatever_their_pieces():
    a = Weights([(0, raw(b"ab")), (4, raw(b"cd"))], 6)
    assert a == Weights([(0, raw(b"ab")), (4, raw(b"cd"))], 6) == Weights.of(b"ab\0\0cd")
    assert a == b"ab\0\0cd"
    assert a != Weights([(0, raw(b"ab")), (4, raw(b"ce"))], 6)   # piece by piece
    assert a != Weights.of(b"ab\0\0ce") and a != Weights.of(b"ab\0\0cd\0")
    # overlapping, the same places hold different pieces that lay the same bytes
    over = Weights([(0, raw(b"abXY")), (2, raw(b"\0\0cd"))], 6)
    assert over == Weights([(0, raw(b"abZZ")), (2, raw(b"\0\0cd"))], 6) == a


def test_the_build_keeps_the_consts_arrays_and_the_om_and_the_device_get_their_bytes():
    model = atc(parse_onnx(str(TINY)), CompileOptions(dump=None),
                BuildOptions()).built.ge_model
    weights = model.weights
    consts = {weight_offset(n): n.op_desc.get_attr(ATTR_NAME_WEIGHTS).data
              for n in model.graph.all_nodes() if weight_offset(n) is not None}
    assert [off for off, _ in weights.pieces] == sorted(consts) and len(consts) > 1
    assert all(np.shares_memory(piece, consts[off]) for off, piece in weights.pieces)
    joined = bytes(weights)
    assert load_om_bytes(om_bytes(model)).weights == joined
    world = World(RuntimeConfig())
    with world.entered():
        device = world.runtime.set_device(0)
        addr = device.malloc(len(weights))
        device.memory.write(addr, bytes([0xEE]) * len(weights))   # stale bytes in the gaps
        heard = []
        world.bus.subscribe(heard.append)
        host_to_device(device, addr, weights)
        assert device.memory.read(addr, len(weights)) == joined
        assert [(e.addr, e.nbytes) for e in heard if isinstance(e, HostMemAccess)] == \
            [(addr, len(weights))]   # one copy to the device, as of one buffer
