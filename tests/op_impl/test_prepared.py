"""Kernel-side caches: derived operands kept while their arrays cannot or do not change
(npu_emu.op_impl.prepared) and the Winograd path they open; BatchNormalization's two forms; Relu
against shared zeros."""
from __future__ import annotations

import gc
from typing import Any, Callable

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from kernel_oracle import reference
from npu_emu.op_impl import get_kernel, nn
from npu_emu.op_impl.prepared import immutable, prepared


def frozen(a: np.ndarray) -> np.ndarray:
    """``a`` as the parser holds an initializer: a read-only view of a bytes object."""
    return np.frombuffer(a.tobytes(), a.dtype).reshape(a.shape)


def counted(fn: Callable[[Any], np.ndarray]) -> tuple[Callable[[Any], np.ndarray], list[int]]:
    """``fn``, and the list it appends to on each call: how often a value was derived."""
    calls: list[int] = []

    def derive(a: Any) -> np.ndarray:
        calls.append(1)
        return fn(a)
    return derive, calls


def test_immutable_means_a_view_of_bytes():
    a = np.arange(6, dtype=np.float32)
    assert immutable(frozen(a))
    assert immutable(frozen(a).reshape(2, 3)[1:])
    assert not immutable(a)
    ro = a.view()
    ro.flags.writeable = False
    assert not immutable(ro)  # its base can still be written
    owned = a.copy()
    owned.flags.writeable = False
    assert not immutable(owned)  # the owner may set writeable again


def test_parser_initializers_are_immutable():
    from ge_core.graph import GeTensor
    from ge_core.parser import parse_onnx
    w = np.ones((2, 2), np.float32)
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])], "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 2])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 2])],
        [numpy_helper.from_array(w, "w")])
    parsed = parse_onnx(helper.make_model(graph))
    const = next(n for n in parsed.nodes if n.type == "Const")
    value = const.op_desc.get_attr("value")
    assert immutable(value.data if isinstance(value, GeTensor) else value)


def test_prepared_derives_once_per_immutable_array():
    derive, calls = counted(lambda a: a * 2)

    w = frozen(np.arange(4, dtype=np.float32))
    first = prepared(w, "test double", derive)
    assert prepared(w, "test double", derive) is first and len(calls) == 1
    assert not first.flags.writeable
    np.testing.assert_array_equal(first, [0, 2, 4, 6])

    mutable = np.arange(4, dtype=np.float32)
    prepared(mutable, "test double", derive)
    mutable[0] = 10
    np.testing.assert_array_equal(prepared(mutable, "test double", derive), [20, 2, 4, 6])
    assert len(calls) == 3


def test_prepared_forgets_a_freed_array():
    from npu_emu.op_impl import prepared as module
    w = frozen(np.ones(3, np.float32))
    prepared(w, "test forget", lambda a: a + 1)
    key = (((id(w), (3,), (4,), "<f4"),), "test forget")
    assert key in module._CACHE
    del w
    gc.collect()
    assert key not in module._CACHE


def test_prepared_reuses_a_mutable_array_while_its_bytes_stay():
    # Device memory: weights are views of one writable buffer, which a memcpy, the debugger or
    # a restore may rewrite between calls; the same bytes in the same view reuse the result.
    derive, calls = counted(lambda a: a * 2)

    memory = np.zeros(64, np.uint8)
    w = memory[16:32].view(np.float32)
    w[:] = [1, 2, 3, 4]
    first = prepared(w, "test device", derive)
    assert prepared(w, "test device", derive) is first and len(calls) == 1
    assert not first.flags.writeable
    memory[24] = 7  # rewritten in place, through another view
    np.testing.assert_array_equal(prepared(w, "test device", derive), w * 2)
    again = memory[16:32].view(np.float32)  # a new view of the same place: its own entry
    np.testing.assert_array_equal(prepared(again, "test device", derive), w * 2)
    other = memory[32:48].view(np.float32)  # other memory with the same shape
    np.testing.assert_array_equal(prepared(other, "test device", derive), [0, 0, 0, 0])
    w.shape = (2, 2)  # the same array reshaped in place: another source
    assert prepared(w, "test device", derive).shape == (2, 2) and len(calls) == 5


def test_prepared_evicts_least_recently_used(monkeypatch):
    from npu_emu.op_impl import prepared as module
    monkeypatch.setattr(module, "_CACHE", type(module._CACHE)())
    monkeypatch.setattr(module, "_held", 0)
    monkeypatch.setattr(module, "_BUDGET", 3 * 2 * 64)  # three (copy, value) pairs of 64 bytes
    arrays = [np.full(16, i, np.float32) for i in range(4)]
    for a in arrays[:3]:
        prepared(a, "test lru", lambda v: v + 1)
    prepared(arrays[0], "test lru", lambda v: v + 1)  # now the most recently used
    prepared(arrays[3], "test lru", lambda v: v + 1)  # evicts arrays[1]'s
    kept = {entry[3][0] for entry in module._CACHE.values()}
    assert kept == {1, 3, 4} and module._held == 3 * 2 * 64


def test_winograd_tile_whatever_the_weights():
    # The tile depends on shapes only: mutable (device) and frozen weights alike.
    x = np.zeros((1, 512, 14, 14), np.float32)
    w = np.zeros((512, 512, 3, 3), np.float32)
    g = nn._geometry(x.shape[2:], w.shape[2:], None, None, [1, 1, 1, 1])
    assert nn._winograd_tile(x, w, g, 1) == nn._winograd_tile(x, frozen(w), g, 1) == 2
    assert not nn._winograd_tile(x[:, :256], w[:256, :256], g, 1)  # 256 channels: too few here
    big = nn._geometry((28, 28), w.shape[2:], None, None, [1, 1, 1, 1])
    assert nn._winograd_tile(x, w[:32], big, 1) == 4    # but enough at 28x28
    assert not nn._winograd_tile(x[:, :16], w[:32, :16], big, 1)  # few input channels


def test_conv_with_device_weights_rewritten_between_calls():
    # A kept U must follow weights rewritten in place, as a memcpy to a loaded model's weight
    # memory does.
    rng = np.random.default_rng(1)
    x = np.abs(rng.standard_normal((1, 64, 28, 28), np.float32))
    memory = np.zeros(64 * 64 * 9 * 4 + 512, np.uint8)
    w = memory[512:].view(np.float32).reshape(64, 64, 3, 3)
    g = nn._geometry(x.shape[2:], w.shape[2:], None, None, [1, 1, 1, 1])
    assert nn._winograd_tile(x, w, g, 1)
    for _ in range(2):
        w[...] = np.abs(rng.standard_normal(w.shape, np.float32))
        want = reference("Conv", [x, w.copy()], 22, 1, pads=[1, 1, 1, 1])[0]
        for _ in range(2):  # the second call reads the kept U
            (got,) = get_kernel("Conv")(x, w, pads=[1, 1, 1, 1])
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_conv_with_kept_transform_matches_reference():
    rng = np.random.default_rng(0)
    x = np.abs(rng.standard_normal((1, 256, 28, 28), np.float32))
    w = frozen(np.abs(rng.standard_normal((256, 256, 3, 3), np.float32)))
    g = nn._geometry(x.shape[2:], w.shape[2:], None, None, [1, 1, 1, 1])
    assert nn._winograd_tile(x, w, g, 1)
    want = reference("Conv", [x, w], 22, 1, pads=[1, 1, 1, 1])[0]
    for _ in range(2):  # the second call reads the kept U
        (got,) = get_kernel("Conv")(x, w, pads=[1, 1, 1, 1])
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_batch_norm_far_off_mean_keeps_precision():
    # |mean| is 1e5 spreads: x * a + (b - mean * a) would lose every digit, (x - mean) first keeps
    # them, and the kernel must pick it.
    rng = np.random.default_rng(2)
    mean = np.array([1e4, -3e4], np.float32)
    var = np.array([0.01, 0.04], np.float32)
    x = (mean.reshape(1, 2, 1) + rng.standard_normal((1, 2, 50), np.float32)
         * np.sqrt(var).reshape(1, 2, 1)).astype(np.float32)
    scale, b = np.ones(2, np.float32), np.zeros(2, np.float32)
    (y,) = get_kernel("BatchNormalization", 15)(x, scale, b, mean, var, epsilon=0.0)
    exact = (x.astype(np.float64) - mean.reshape(1, 2, 1)) / np.sqrt(var).reshape(1, 2, 1)
    np.testing.assert_allclose(y, exact, atol=1e-3)


def test_relu_against_the_shared_zeros():
    relu = get_kernel("Relu")
    small = np.array([-1.0, np.nan, 0.5, -np.inf], np.float32)
    np.testing.assert_array_equal(relu(small)[0], [0, np.nan, 0.5, 0])
    big = np.linspace(-1, 1, 1 << 20, dtype=np.float32)  # grows the shared buffer
    np.testing.assert_array_equal(relu(big)[0], np.maximum(big, 0))
    np.testing.assert_array_equal(relu(np.array([-3, 4], np.int64))[0], [0, 4])


def test_prepared_from_several_arrays_keeps_while_all_are_unchanged_and_forgets_with_any():
    from npu_emu.op_impl import prepared as module
    total, calls = counted(lambda arrays: arrays[0] + arrays[1])

    a, b = frozen(np.ones(3, np.float32)), frozen(np.full(3, 2, np.float32))
    first = prepared((a, b), "test sum", total)
    assert prepared((a, b), "test sum", total) is first and len(calls) == 1
    assert prepared((b, a), "test sum", total) is not first  # another source, another entry
    mutable = np.ones(3, np.float32)
    kept = prepared((a, mutable), "test sum", total)
    assert prepared((a, mutable), "test sum", total) is kept and len(calls) == 3
    mutable[0] = 5
    np.testing.assert_array_equal(prepared((a, mutable), "test sum", total), [6, 2, 2])
    assert len(calls) == 4
    key = next(key for key in module._CACHE if key[1] == "test sum" and
               [place[0] for place in key[0]] == [id(a), id(b)])
    del b
    gc.collect()
    assert key not in module._CACHE


@pytest.mark.parametrize("size", [4, 1 << 15])  # a snapshot of bytes, and a copy (64 KiB up)
def test_prepared_compares_bits_not_values(size):
    def reciprocal(a: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return 1 / a

    inverse, calls = counted(reciprocal)

    w = np.zeros(size, np.float32)
    assert prepared(w, "test bits", inverse)[0] == np.inf
    w[0] = -0.0  # equal to 0.0, but 1 / x tells them apart
    assert prepared(w, "test bits", inverse)[0] == -np.inf and len(calls) == 2
    w[1] = np.nan  # a NaN is unequal to itself, yet the same bits derive the same
    prepared(w, "test bits", inverse)
    assert np.isnan(prepared(w, "test bits", inverse)[1]) and len(calls) == 3


def test_batch_norm_with_device_parameters_rewritten_between_calls(monkeypatch):
    # The four parameters as a loaded model holds them, views of one writable buffer: the
    # coefficients are kept while the bytes stay, and follow a parameter rewritten in place.
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 4, 5, 5), np.float32)
    memory = np.zeros(64, np.float32)
    scale, b, mean, var = (memory[i * 8:i * 8 + 4] for i in range(4))
    for params in (scale, b, mean):
        params[:] = rng.standard_normal(4, np.float32)
    derived = []

    def coefficients(params: tuple[np.ndarray, ...], epsilon: float) -> np.ndarray:
        derived.append(1)
        return derive(params, epsilon)

    derive = nn._batch_norm_coefficients
    monkeypatch.setattr(nn, "_batch_norm_coefficients", coefficients)
    for step in range(2):
        var[:] = np.abs(rng.standard_normal(4, np.float32)) + step
        want = reference("BatchNormalization", [x, scale.copy(), b.copy(), mean.copy(),
                                                var.copy()], 15, 1)[0]
        for _ in range(2):
            (y,) = get_kernel("BatchNormalization", 15)(x, scale, b, mean, var)
            np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
        assert len(derived) == step + 1  # the second call reads the kept coefficients


def test_batch_norm_with_constant_parameters_derives_its_coefficients_once():
    from npu_emu.op_impl import prepared as module
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 4, 5, 5), np.float32)
    scale, b, mean = (frozen(rng.standard_normal(4, np.float32)) for _ in range(3))
    var = frozen(np.abs(rng.standard_normal(4, np.float32)))
    want = reference("BatchNormalization", [x, scale, b, mean, var], 15, 1, epsilon=1e-3)[0]
    before = len(module._CACHE)
    for _ in range(2):
        (y,) = get_kernel("BatchNormalization", 15)(x, scale, b, mean, var, epsilon=1e-3)
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
        assert len(module._CACHE) == before + 1
    # another epsilon is another derivation
    get_kernel("BatchNormalization", 15)(x, scale, b, mean, var, epsilon=1e-5)
    assert len(module._CACHE) == before + 2


class _Memory:
    """A ConstantMemory over one buffer whose first half is constant."""

    def __init__(self, buffer: np.ndarray) -> None:
        self.buffer, self.epoch = buffer, 0

    def holds_constant(self, a: np.ndarray, buffer: np.ndarray) -> bool:
        offset = a.__array_interface__["data"][0] - buffer.__array_interface__["data"][0]
        return buffer is self.buffer and offset + a.nbytes <= buffer.nbytes // 2


def test_prepared_trusts_vouched_memory_while_its_epoch_stays():
    from npu_emu.base.constant_memory import vouch
    derive, calls = counted(lambda a: a * 2)

    buffer = np.zeros(64, np.uint8)
    memory = _Memory(buffer)
    vouch(buffer, memory)
    w = buffer[:16].view(np.float32)
    w[:] = 1
    first = prepared(w, "test vouched", derive)
    w[0] = 5   # behind the owner's back: the kept value stands, as no byte is compared
    assert prepared(w, "test vouched", derive) is first and len(calls) == 1
    memory.epoch = 1   # what the owner does on a write that may reach its constants
    np.testing.assert_array_equal(prepared(w, "test vouched", derive), [10, 2, 2, 2])
    assert len(calls) == 2
    outside = buffer[32:48].view(np.float32)   # not constant: its bytes are compared
    prepared(outside, "test vouched", derive)
    outside[0] = 3
    np.testing.assert_array_equal(prepared(outside, "test vouched", derive), [6, 0, 0, 0])
    mixed = (w, outside)   # a tuple is vouched for only when every array is
    prepared(mixed, "test vouched", lambda t: t[0] + t[1])
    outside[1] = 4
    np.testing.assert_array_equal(prepared(mixed, "test vouched", lambda t: t[0] + t[1]),
                                  [8, 5, 1, 1])

