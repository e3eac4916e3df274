"""InferShape of the recurrent, transformer, quantization and string ops against ONNX's own shape
inference (the goldens are what ONNX infers, and every case asserts it still does; see
test_ops_infer_shape)."""
from __future__ import annotations

import numpy as np
import pytest

from test_ops_infer_shape import X, c, check


@pytest.mark.parametrize("op, gates", [("RNN", 1), ("GRU", 3), ("LSTM", 4)])
@pytest.mark.parametrize("direction, layout", [("forward", 0), ("bidirectional", 0),
                                               ("reverse", 1)])
def test_recurrent(op: str, gates: int, direction: str, layout: int) -> None:
    dirs = 2 if direction == "bidirectional" else 1
    x = X(3, 5, 4) if layout else X(5, 3, 4)
    y, state = ([3, 5, dirs, 6], [3, dirs, 6]) if layout else ([5, dirs, 3, 6], [dirs, 3, 6])
    n_out = 3 if op == "LSTM" else 2
    check(op, [x, X(dirs, gates * 6, 4), X(dirs, gates * 6, 6)], [y] + [state] * (n_out - 1),
          opset=14, hidden_size=6, direction=direction, layout=layout)


def test_attention_4d_with_a_cache() -> None:
    # q [2, 8 heads, 3, 16], k/v [2, 2 heads, 3, 16/12], a 5-step cache: GQA.
    check("Attention", [X(2, 8, 3, 16), X(2, 2, 3, 16), X(2, 2, 3, 12), None, X(2, 2, 5, 16),
                        X(2, 2, 5, 12)],
          [[2, 8, 3, 12], [2, 2, 8, 16], [2, 2, 8, 12], [2, 8, 3, 8]], opset=23)


def test_attention_3d() -> None:
    check("Attention", [X(2, 3, 64), X(2, 4, 32), X(2, 4, 24)], [[2, 3, 48]], opset=23,
          q_num_heads=4, kv_num_heads=2)


def test_rotary_embedding() -> None:
    check("RotaryEmbedding", [X(2, 3, 4, 8), X(10, 4), X(10, 4), c(0, 1, 2, 3, dtype=np.int64)
                              .reshape(1, 4).repeat(2, 0)], [[2, 3, 4, 8]], opset=23)


@pytest.mark.parametrize("zero_point, dtype", [(None, np.uint8), (np.int8, np.int8)])
def test_quantize_dequantize(zero_point: type | None, dtype: type) -> None:
    zp = None if zero_point is None else np.zeros(3, zero_point)
    inputs = [X(2, 3, 4), np.ones(3, np.float32)] + ([] if zp is None else [zp])
    check("QuantizeLinear", inputs, [[2, 3, 4]], opset=21, axis=1)
    check("DequantizeLinear", [X(2, 3, 4, dtype=dtype), np.ones(3, np.float16)], [[2, 3, 4]],
          opset=21, axis=1)


def test_dynamic_quantize_linear() -> None:
    check("DynamicQuantizeLinear", [X(2, 5)], [[2, 5], [], []], opset=11)


def test_integer_matmuls() -> None:
    u8 = dict(dtype=np.uint8)
    check("MatMulInteger", [X(4, 3, **u8), X(3, 2, **u8)], [[4, 2]], opset=10)
    scale, zero = np.ones((), np.float32), np.zeros((), np.uint8)
    check("QLinearMatMul", [X(2, 4, 3, **u8), scale, zero, X(3, 5, **u8), scale, zero, scale,
                            zero], [[2, 4, 5]], opset=21)


def test_integer_convs() -> None:
    u8 = dict(dtype=np.uint8)
    check("ConvInteger", [X(1, 3, 8, 8, **u8), X(4, 3, 3, 3, **u8)], [[1, 4, 8, 6]], opset=10,
          pads=[1, 0, 1, 0])
    scale, zero = np.ones((), np.float32), np.zeros((), np.uint8)
    check("QLinearConv", [X(1, 3, 8, 8, **u8), scale, zero, X(4, 3, 3, 3, **u8), scale, zero,
                          scale, zero], [[1, 4, 3, 3]], opset=10, strides=[2, 2])


def test_string_ops() -> None:
    s = dict(dtype=object)
    check("StringConcat", [X(3, 1, **s), X(4, **s)], [[3, 4]], opset=20)
    check("RegexFullMatch", [X(2, 5, **s)], [[2, 5]], opset=20, pattern="a+")
    check("StringSplit", [X(2, 3, **s)], [[2, 3, -1], [2, 3]], opset=20)
