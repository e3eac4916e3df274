"""Random small networks, valid ONNX, for checking the whole compile against onnxruntime: the
passes' patterns (Conv + BatchNorm + Relu, channel shuffles, NHWC round trips, Cast pairs,
Concats that need no task, MatMul + Add, attention) meet each other in orders and shapes no
hand-made test has, with tensors read twice and intermediate values kept as graph outputs.

``network(draw, ops)`` builds a convolutional one on an NCHW tensor, ``sequence_network(draw,
ops)`` a transformer-like one on [N, T, D]; both take their choices from ``draw`` (a
hypothesis adapter, so a failing network shrinks), one op at a time, of batch N = ``batch``
(1 unless asked: a batch of several makes a channel Concat no view of its output).
"""
from __future__ import annotations

from typing import Callable, Protocol, Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

Shape = tuple[int, int, int, int]


class Draw(Protocol):
    def choice(self, options: Sequence): ...
    def coin(self) -> bool: ...
    def integer(self, lo: int, hi: int) -> int: ...


class _Net:
    """The graph under construction: its nodes, initializers, and the values of x's rank made
    so far (the only ones a later op may read)."""

    def __init__(self, draw: Draw, x: tuple[int, ...]) -> None:
        self.draw, self.nodes, self.inits = draw, [], []
        self.values: list[tuple[str, tuple[int, ...]]] = [("x", x)]
        self.rank, self.n = len(x), x[0]
        self.read: set[str] = set()
        self.rng = np.random.default_rng(draw.integer(0, 2 ** 16))

    def name(self, stem: str) -> str:
        return f"{stem}{len(self.nodes) + len(self.inits)}"

    def const(self, value: np.ndarray | float | Sequence[int]) -> str:
        array = np.asarray(value)
        if array.dtype.kind != "b":
            array = array.astype(np.int64 if array.dtype.kind == "i" else np.float32)
        name = self.name("c")
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def weights(self, *shape: int, scale: float = 0.5) -> str:
        return self.const(self.rng.standard_normal(shape) * scale)

    def op(self, op_type: str, inputs: list[str], shape: tuple[int, ...] | None,
           outputs: int = 1, **attrs) -> list[str]:
        """Add the node; its outputs, kept as values to read when ``shape`` is of x's rank."""
        names = [self.name(op_type.lower()) + f"_{i}" for i in range(outputs)]
        self.nodes.append(helper.make_node(op_type, inputs, names, name=self.name(op_type),
                                           **attrs))
        self.read.update(inputs)
        if shape is not None and len(shape) == self.rank:
            self.values += [(n, shape) for n in names]
        return names

    def one(self, op_type: str, inputs: list[str], shape: tuple[int, ...] | None = None,
            **attrs) -> str:
        return self.op(op_type, inputs, shape, **attrs)[0]


# -- the ops: each reads ``src`` of shape (N, c, h, w), and adds nothing where it cannot -------
def _conv(net: _Net, src: str, c: int, h: int, w: int) -> None:
    draw = net.draw
    k, stride = draw.choice([1, 3]), draw.choice([1, 2]) if min(h, w) >= 4 else 1
    group = draw.choice([g for g in (1, 2, 3, c) if c % g == 0])
    out = group * draw.choice([1, 2]) if group == c else \
        draw.choice([n for n in (2, 4, 6, 8, 12) if n % group == 0])
    inputs = [src, net.weights(out, c // group, k, k)]
    if draw.coin():
        inputs.append(net.weights(out, scale=0.1))
    pad = k // 2
    net.one("Conv", inputs, (net.n, out, (h + 2 * pad - k) // stride + 1,
                             (w + 2 * pad - k) // stride + 1),
            kernel_shape=[k, k], pads=[pad] * 4, strides=[stride] * 2, group=group)


def _batch_norm(net: _Net, src: str, c: int, h: int, w: int) -> None:
    params = [net.weights(c, scale=1.0), net.weights(c, scale=0.1), net.weights(c, scale=0.1),
              net.const(net.rng.random(c) + 0.5)]
    net.one("BatchNormalization", [src, *params], (net.n, c, h, w))


def _unary(net: _Net, src: str, c: int, h: int, w: int) -> None:
    op = net.draw.choice(["Relu", "Sigmoid", "Tanh", "LeakyRelu", "Clip", "HardSwish",
                          "Identity"])
    if op == "Clip":
        net.one("Clip", [src, net.const(0.0), net.const(6.0)], (net.n, c, h, w))
    else:
        net.one(op, [src], (net.n, c, h, w), **({"alpha": 0.1} if op == "LeakyRelu" else {}))


def _binary(net: _Net, src: str, c: int, h: int, w: int) -> None:
    """Of two values of one shape, or of a value and a constant per channel or whole."""
    draw = net.draw
    op = draw.choice(["Add", "Mul", "Sub", "Div", "Sum"])
    peers = [v for v, shape in net.values if shape == (net.n, c, h, w) and v != src]
    if op != "Div" and peers and draw.coin():
        other = draw.choice(peers)
    elif op == "Div":
        other = net.const(net.rng.random((1, c, 1, 1)) + 0.5)
    else:
        other = net.weights(*draw.choice([(c, 1, 1), (1, c, h, w)]), scale=1.0)
    inputs = [src, other, src] if op == "Sum" else \
        [other, src] if op == "Sub" and draw.coin() else [src, other]
    net.one(op, inputs, (net.n, c, h, w))


def _scale(net: _Net, src: str, c: int, h: int, w: int) -> None:
    """A Mul and an Add per channel (a BatchNorm's arithmetic, spelt out)."""
    scaled = net.one("Mul", [src, net.weights(c, 1, 1, scale=1.0)])
    net.one("Add", [scaled, net.weights(c, 1, 1, scale=1.0)], (net.n, c, h, w))


def _concat(net: _Net, src: str, c: int, h: int, w: int) -> None:
    other, shape = net.draw.choice([(v, s) for v, s in net.values if s[2:] == (h, w)])
    net.one("Concat", [src, other], (net.n, c + shape[1], h, w), axis=1)


def _split(net: _Net, src: str, c: int, h: int, w: int) -> None:
    if c < 2:
        return
    first = net.draw.integer(1, c - 1)
    a, b = net.op("Split", [src, net.const([first, c - first])], None, outputs=2, axis=1)
    net.values += [(a, (net.n, first, h, w)), (b, (net.n, c - first, h, w))]


def _slice(net: _Net, src: str, c: int, h: int, w: int) -> None:
    draw = net.draw
    if c >= 2 and draw.coin():
        begin = draw.integer(0, c - 2)
        end = draw.integer(begin + 1, c)
        net.one("Slice", [src, net.const([begin]), net.const([end]), net.const([1])],
                (net.n, end - begin, h, w))
    elif min(h, w) >= 2:
        net.one("Slice", [src, net.const([1, 1]), net.const([h, w]), net.const([2, 3])],
                (net.n, c, h - 1, w - 1))


def _pool(net: _Net, src: str, c: int, h: int, w: int) -> None:
    draw = net.draw
    op = draw.choice(["MaxPool", "AveragePool"])
    if draw.coin() and min(h, w) >= 2:
        net.one(op, [src], (net.n, c, h // 2, w // 2), kernel_shape=[2, 2], strides=[2, 2])
    else:
        net.one(op, [src], (net.n, c, h, w), kernel_shape=[3, 3], pads=[1] * 4,
                **({"count_include_pad": 0} if op == "AveragePool" else {}))


def _shuffle(net: _Net, src: str, c: int, h: int, w: int) -> None:
    """ShuffleNet's channel shuffle: Reshape to groups, swap them, Reshape back."""
    groups = [g for g in (2, 3, 4) if c % g == 0 and c > g]
    if not groups:
        return
    g = net.draw.choice(groups)
    split = net.one("Reshape", [src, net.const([net.n, g, c // g, h, w])])
    swapped = net.one("Transpose", [split], perm=[0, 2, 1, 3, 4])
    net.one("Reshape", [swapped, net.const([net.n, c, h, w])], (net.n, c, h, w))


def _nhwc(net: _Net, src: str, c: int, h: int, w: int) -> None:
    """To NHWC and back, with nothing between, a Relu, or a BatchNorm and a Relu (of H as the
    channels); the NHWC value is left to read too."""
    y = net.one("Transpose", [src], (net.n, h, w, c), perm=[0, 2, 3, 1])
    between = net.draw.choice(["", "Relu", "BatchNormalization"])
    if between == "BatchNormalization":
        _batch_norm(net, y, h, w, c)
        y = net.values[-1][0]
    if between:
        y = net.one("Relu", [y], (net.n, h, w, c))
    net.one("Transpose", [y], (net.n, c, h, w), perm=[0, 3, 1, 2])


def _views(net: _Net, src: str, c: int, h: int, w: int) -> None:
    """A view and back: Flatten then Reshape, Unsqueeze then Squeeze, or a Cast pair."""
    kind = net.draw.choice(["Flatten", "Unsqueeze", "Cast"])
    if kind == "Flatten":
        y = net.one("Flatten", [src], axis=1)
        net.one("Reshape", [y, net.const([net.n, c, h, w])], (net.n, c, h, w))
    elif kind == "Unsqueeze":
        y = net.one("Unsqueeze", [src, net.const([0])])
        net.one("Squeeze", [y, net.const([0])], (net.n, c, h, w))
    else:
        y = net.one("Cast", [src], to=TensorProto.DOUBLE)
        net.one("Cast", [y], (net.n, c, h, w), to=TensorProto.FLOAT)


def _resample(net: _Net, src: str, c: int, h: int, w: int) -> None:
    """Larger maps: nearest Resize, ConvTranspose, DepthToSpace; or a dilated Conv, a Pad."""
    draw = net.draw
    kind = draw.choice(["Resize", "ConvTranspose", "DepthToSpace", "Dilated", "Pad"])
    if kind == "Resize" and max(h, w) <= 8:
        net.one("Resize", [src, "", net.const([1.0, 1.0, 2.0, 2.0])], (net.n, c, 2 * h, 2 * w),
                mode="nearest")
    elif kind == "ConvTranspose" and max(h, w) <= 8:
        out = draw.choice([1, 2, 4])
        net.one("ConvTranspose", [src, net.weights(c, out, 2, 2)], (net.n, out, 2 * h, 2 * w),
                kernel_shape=[2, 2], strides=[2, 2])
    elif kind == "DepthToSpace" and c % 4 == 0:
        net.one("DepthToSpace", [src], (net.n, c // 4, 2 * h, 2 * w), blocksize=2)
    elif kind == "Dilated" and min(h, w) >= 3:
        out = draw.choice([2, 4])
        net.one("Conv", [src, net.weights(out, c, 3, 3)], (net.n, out, h, w), kernel_shape=[3, 3],
                pads=[2] * 4, dilations=[2, 2])
    elif kind == "Pad":
        net.one("Pad", [src, net.const([0, 0, 1, 1, 0, 0, 1, 1]), net.const(0.5)],
                (net.n, c, h + 2, w + 2))


def _reduce(net: _Net, src: str, c: int, h: int, w: int) -> None:
    """Softmax over channels, a mean over the map, or a classifier head back to NCHW."""
    kind = net.draw.choice(["Softmax", "ReduceMean", "Head"])
    if kind == "Softmax":
        net.one("Softmax", [src], (net.n, c, h, w), axis=1)
    elif kind == "ReduceMean":
        net.one("ReduceMean", [src], (net.n, c, 1, 1), axes=[2, 3], keepdims=1)
    else:
        n = net.draw.choice([2, 5])
        pooled = net.one("Flatten", [net.one("GlobalAveragePool", [src])], axis=1)
        y = net.one("Gemm", [pooled, net.weights(n, c), net.weights(n, scale=0.1)], transB=1)
        net.one("Reshape", [y, net.const([net.n, n, 1, 1])], (net.n, n, 1, 1))


OPS: tuple[Callable[[_Net, str, int, int, int], None], ...] = (
    _conv, _conv, _batch_norm, _unary, _binary, _scale, _concat, _split, _slice, _pool,
    _shuffle, _nhwc, _views, _resample, _reduce)


def network(draw: Draw, ops: int, batch: int = 1) -> onnx.ModelProto:
    """A convolutional network of about ``ops`` ops on input x (NCHW)."""
    x: Shape = (batch, draw.choice([1, 2, 3, 4, 6, 8]), draw.choice([4, 5, 6, 8]),
                draw.choice([4, 5, 6, 8]))
    net = _Net(draw, x)
    for _ in range(ops):
        src, (_, c, h, w) = draw.choice(net.values[-3:] if draw.coin() else net.values)
        draw.choice(OPS)(net, src, c, h, w)
    if not net.nodes:   # every op drawn declined its input: a graph needs an output
        _unary(net, "x", *x[1:])
    return _model(net, x, opset=14)


# -- sequences: each reads ``src`` of shape (N, t, d) -------------------------------------------
def _linear(net: _Net, src: str, t: int, d: int) -> None:
    """A MatMul by a weight, and its bias added or not (MatMulAddFusionPass's pattern)."""
    n = net.draw.choice([4, 6, 8, 12])
    y = net.one("MatMul", [src, net.weights(d, n)], (net.n, t, n))
    if net.draw.coin():
        net.one("Add", [y, net.weights(n, scale=0.1)], (net.n, t, n))


def _layer_norm(net: _Net, src: str, t: int, d: int) -> None:
    """LayerNormalization, or spelt out as the exporters write it (mean, centre, variance)."""
    gamma, beta = net.weights(d, scale=1.0), net.weights(d, scale=0.1)
    if net.draw.coin():
        net.one("LayerNormalization", [src, gamma, beta], (net.n, t, d), axis=-1)
        return
    centred = net.one("Sub", [src, net.one("ReduceMean", [src], axes=[-1], keepdims=1)])
    var = net.one("ReduceMean", [net.one("Pow", [centred, net.const(2.0)])], axes=[-1],
                  keepdims=1)
    normed = net.one("Div", [centred, net.one("Sqrt", [net.one("Add", [var, net.const(1e-5)])])])
    net.one("Add", [net.one("Mul", [normed, gamma]), beta], (net.n, t, d))


def _gelu(net: _Net, src: str, t: int, d: int) -> None:
    """x * (1 + erf(x / sqrt 2)) / 2, as the exporters write it."""
    erf = net.one("Erf", [net.one("Div", [src, net.const(2 ** 0.5)])])
    net.one("Mul", [net.one("Mul", [src, net.one("Add", [erf, net.const(1.0)])]),
                    net.const(0.5)], (net.n, t, d))


def _attention(net: _Net, src: str, t: int, d: int) -> None:
    """Self-attention over ``heads`` heads: Q K^T / sqrt(dh), Softmax, by V, heads joined."""
    heads = net.draw.choice([h for h in (1, 2, 3, 4) if d % h == 0])
    dh = d // heads

    def split(v: str) -> str:
        return net.one("Transpose", [net.one("Reshape", [v, net.const([net.n, t, heads, dh])])],
                       perm=[0, 2, 1, 3])
    q, k, v = (split(net.one("MatMul", [src, net.weights(d, d)])) for _ in range(3))
    kt = net.one("Transpose", [k], perm=[0, 1, 3, 2])
    scores = net.one("Mul", [net.one("MatMul", [q, kt]), net.const(dh ** -0.5)])
    mixed = net.one("MatMul", [net.one("Softmax", [scores], axis=-1), v])
    joined = net.one("Transpose", [mixed], perm=[0, 2, 1, 3])
    net.one("Reshape", [joined, net.const([net.n, t, d])], (net.n, t, d))


def _pointwise(net: _Net, src: str, t: int, d: int) -> None:
    """An activation, a Softmax, a residual Add, a masked Where or a CumSum."""
    draw = net.draw
    kind = draw.choice(["Relu", "Tanh", "Sigmoid", "Softmax", "Add", "Where", "CumSum"])
    peers = [v for v, shape in net.values if shape == (net.n, t, d) and v != src]
    if kind == "Softmax":
        net.one("Softmax", [src], (net.n, t, d), axis=draw.choice([-1, 1]))
    elif kind == "Add" and peers:
        net.one("Add", [src, draw.choice(peers)], (net.n, t, d))
    elif kind == "Where":
        mask = net.const(net.rng.random((t, d)) > 0.5)
        net.one("Where", [mask, src, net.const(-1.0)], (net.n, t, d))
    elif kind == "CumSum":
        net.one("CumSum", [src, net.const(1)], (net.n, t, d))
    elif kind != "Add":
        net.one(kind, [src], (net.n, t, d))


def _rows(net: _Net, src: str, t: int, d: int) -> None:
    """Rows taken (Slice, Gather), joined (Concat), reduced and broadcast back (Expand), or the
    sequence against itself (x x^T), or transposed."""
    draw = net.draw
    kind = draw.choice(["Slice", "Gather", "Concat", "Expand", "Gram", "Transpose"])
    if kind == "Slice" and t >= 2:
        begin = draw.integer(0, t - 2)
        end = draw.integer(begin + 1, t)
        net.one("Slice", [src, net.const([begin]), net.const([end]), net.const([1])],
                (net.n, end - begin, d))
    elif kind == "Gather":
        rows = [draw.integer(0, t - 1) for _ in range(draw.integer(1, 3))]
        net.one("Gather", [src, net.const(rows)], (net.n, len(rows), d), axis=1)
    elif kind == "Concat":
        other, shape = draw.choice([(v, s) for v, s in net.values if s[2] == d])
        net.one("Concat", [src, other], (net.n, t + shape[1], d), axis=1)
    elif kind == "Expand":
        mean = net.one(draw.choice(["ReduceMean", "ReduceMax"]), [src], axes=[-1], keepdims=1)
        net.one("Expand", [mean, net.const([net.n, t, d])], (net.n, t, d))
    elif kind == "Gram":
        net.one("MatMul", [src, net.one("Transpose", [src], perm=[0, 2, 1])], (net.n, t, t))
    elif kind == "Transpose":
        y = net.one("Transpose", [src], (net.n, d, t), perm=[0, 2, 1])
        if draw.coin():
            net.one("Transpose", [y], (net.n, t, d), perm=[0, 2, 1])


SEQUENCE_OPS: tuple[Callable[[_Net, str, int, int], None], ...] = (
    _linear, _linear, _layer_norm, _gelu, _attention, _pointwise, _rows)


def sequence_network(draw: Draw, ops: int, batch: int = 1) -> onnx.ModelProto:
    """A transformer-like network of about ``ops`` ops on input x of [N, T, D]."""
    x = (batch, draw.choice([2, 3, 4, 6]), draw.choice([4, 6, 8, 12]))
    net = _Net(draw, x)
    for _ in range(ops):
        src, (_, t, d) = draw.choice(net.values[-3:] if draw.coin() else net.values)
        draw.choice(SEQUENCE_OPS)(net, src, t, d)
    if not net.nodes:
        _pointwise(net, "x", *x[1:])
    return _model(net, x, opset=17)


def _model(net: _Net, x: tuple[int, ...], opset: int) -> onnx.ModelProto:
    """The network's model: its outputs are the last value, a few values made on the way, and
    every value nothing reads (so that none is dead)."""
    made = dict(net.values[1:])
    outputs = list(made)[-1:]
    for v in made:
        if v not in outputs and (v not in net.read or net.draw.coin() and len(outputs) < 4):
            outputs.append(v)
    graph = helper.make_graph(
        net.nodes, "random", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x)],
        [helper.make_tensor_value_info(v, TensorProto.FLOAT, made[v]) for v in outputs],
        net.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8   # what onnxruntime reads
    onnx.checker.check_model(model, full_check=True)
    return model
