"""Elementwise kernels: arithmetic, activations, comparisons and logic, Clip, and the
variadic Max/Min/Sum/Mean.

Ops without attributes are rows of rule tables registered in a loop; ops with attributes get a
small function each. Before opset 7 binary ops did not broadcast numpy-style: the right operand
was aligned with the left one at ``axis`` when ``broadcast=1`` (``legacy_broadcast``).

Kernels are registered from opset 1 unless their semantics changed later (whether an op exists
at all at some opset is the ONNX checker's business). Attribute scalars are cast to the input's
dtype before use, so a float32 op stays float32 even if an attr arrives as np.float64 (numpy 2
promotes on numpy scalars, not on Python ones).
"""
from __future__ import annotations

import functools
import math
from typing import Callable, Sequence

import numpy as np

from npu_emu.op_impl.broadcast import call, rowwise
from npu_emu.op_impl.in_place import fits
from npu_emu.op_impl.registry import kernel


ArrayFn = Callable[..., np.ndarray]


def one_output(op_type: str, since: int = 1, *,
               writes_out: bool = False) -> Callable[[ArrayFn], ArrayFn]:
    """Register a one-output kernel written as ``fn(*inputs, **attrs) -> array``; ``fn`` itself
    stays a plain array function, so kernels can call each other.

    The registered kernel returns ``(array,)``: numpy ufuncs and full reductions hand back numpy
    scalars for 0-d results, which are turned back into arrays here. With ``writes_out``, ``fn``
    takes ``out=`` (one array or None) and the kernel ``out=`` (a tuple, see the registry).
    """

    def register(fn: ArrayFn) -> ArrayFn:
        @functools.wraps(fn)
        def run(*inputs: np.ndarray | None, out: Sequence[np.ndarray] | None = None,
                **attrs: object) -> tuple[np.ndarray, ...]:
            if out is not None:
                attrs["out"] = out[0]
            return (np.asarray(fn(*inputs, **attrs)),)

        kernel(op_type, since, writes_out=writes_out)(run)
        return fn

    return register


def legacy_broadcast(a: np.ndarray, b: np.ndarray, broadcast: int = 0,
                     axis: int | None = None) -> np.ndarray:
    """``b`` broadcast to ``a``'s shape as opsets 1-6 define it: only the right operand
    broadcasts, and only if ``broadcast=1``; its dims line up with ``a``'s from ``axis`` on
    (suffix matching when ``axis`` is absent)."""
    if not broadcast:
        if a.shape != b.shape:
            raise ValueError(f"shapes {a.shape} and {b.shape} differ and broadcast=0")
        return b
    if axis is not None and b.ndim:
        b = b.reshape(b.shape + (1,) * (a.ndim - axis % a.ndim - b.ndim))
    # PyTorch's exporter also relies on size-1 dims of b stretching, which numpy does.
    return np.broadcast_to(b, a.shape)


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind in "iu":  # ONNX integer division truncates toward zero like C; // floors
        return np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))
    return np.divide(a, b)


def _pow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # The exponent may have another type (opset 12+); the result has the base's.
    if a.dtype.kind in "iu" and b.dtype.kind in "iu" and (b < 0).any():
        # numpy refuses an integer to a negative integer power; onnxruntime takes C's pow
        # and truncates it toward zero (2 ** -1 is 0, -1 ** -1 is -1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.trunc(np.power(a.astype(np.float64), b)).astype(a.dtype)
    return np.power(a, b).astype(a.dtype, copy=False)


_BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "Add": np.add,
    "Sub": np.subtract,
    "Mul": np.multiply,
    "Div": _div,                # integers truncate toward zero
    "Pow": _pow,                # in the base's dtype
    "Equal": np.equal,          # comparisons give bool
    "Less": np.less,
    "Greater": np.greater,
    "GreaterOrEqual": np.greater_equal,
    "LessOrEqual": np.less_equal,
    "And": np.logical_and,      # logic takes and gives bool
    "Or": np.logical_or,
    "Xor": np.logical_xor,
}


_WRITES_OUT = frozenset({"Add", "Sub", "Mul"})  # single ufuncs with the inputs' dtype


def _into_out(ufunc: np.ufunc) -> Callable[..., np.ndarray]:
    """``ufunc(a, b)``, into ``out`` where it fits, row by row where numpy would buffer."""

    def run(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        into = fits(out, np.broadcast_shapes(a.shape, b.shape), np.result_type(a, b))
        return call(ufunc, a, b, out=into)

    run.__name__ = ufunc.__name__
    return run


def _register_binary(op: str, fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> None:
    rows = rowwise(fn)

    @one_output(op)
    def legacy(a: np.ndarray, b: np.ndarray, *, broadcast: int = 0,
               axis: int | None = None) -> np.ndarray:
        return rows(a, legacy_broadcast(a, b, broadcast, axis))

    if op in _WRITES_OUT:
        one_output(op, since=7, writes_out=True)(_into_out(fn))
    else:
        one_output(op, since=7)(rows)


for _op, _fn in _BINARY.items():
    _register_binary(_op, _fn)


_ZEROS: dict[np.dtype, np.ndarray] = {}


def zeros_like(x: np.ndarray) -> np.ndarray:
    """Read-only zeros shaped like ``x``, carved from one buffer per dtype kept at the largest
    size asked for (VGG's biggest activation: 13 MB)."""
    buf = _ZEROS.get(x.dtype)
    if buf is None or buf.size < x.size:
        buf = np.zeros(max(x.size, 1 << 16), x.dtype)
        buf.flags.writeable = False
        _ZEROS[x.dtype] = buf
    return buf[:x.size].reshape(x.shape)


@one_output("Relu", writes_out=True)
def relu(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    # Against an array of zeros, not the scalar 0, which numpy 2's maximum runs far slower
    # against: over ResNet-50's 49 Relu inputs, 3.4 ms against 1.9 ms.
    return np.maximum(x, zeros_like(x), out=fits(out, x.shape, x.dtype))


def sigmoid(x: np.ndarray) -> np.ndarray:
    # exp(-|x|) never overflows; sigmoid(-t) = e/(1+e) mirrors sigmoid(t) = 1/(1+e).
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1, e) / (1 + e)


def erf(x: np.ndarray) -> np.ndarray:
    # numpy has no erf; math.erf is exact in float64.
    return np.vectorize(math.erf, otypes=[np.float64])(x).astype(x.dtype)


_UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "Abs": np.abs,
    "Neg": np.negative,
    "Exp": np.exp,
    "Log": np.log,                              # NaN below 0 and -inf at 0, as ONNX leaves them
    "Sqrt": np.sqrt,
    "Reciprocal": np.reciprocal,                # float types only, so never integer 1 // x
    "Floor": np.floor,
    "Ceil": np.ceil,
    "Sign": np.sign,                            # -1, 0 or 1 (opset 9)
    "Tanh": np.tanh,
    "Erf": erf,                                # opset 9
    "Not": np.logical_not,                      # bool only
    "Identity": lambda x: x,                    # no copy needed: kernels never write into arrays
    "Sigmoid": sigmoid,
    "Softplus": lambda x: np.logaddexp(0, x),   # log(1 + e^x) without overflowing e^x
    "Softsign": lambda x: x / (1 + np.abs(x)),
    "Round": np.round,                          # halves to even, as ONNX asks
    "Sin": np.sin, "Cos": np.cos, "Tan": np.tan,
    "Asin": np.arcsin, "Acos": np.arccos, "Atan": np.arctan,
    "Sinh": np.sinh, "Cosh": np.cosh,
    "Asinh": np.arcsinh, "Acosh": np.arccosh, "Atanh": np.arctanh,
    "HardSwish": lambda x: x * np.clip(x / 6 + x.dtype.type(0.5), 0, 1),
    "Mish": lambda x: x * np.tanh(np.logaddexp(0, x)),
}

for _op, _fn in _UNARY.items():
    one_output(_op)(_fn)


@one_output("LeakyRelu")
def leaky_relu(x: np.ndarray, *, alpha: float = 0.01) -> np.ndarray:
    return np.where(x >= 0, x, x.dtype.type(alpha) * x)


@one_output("Elu")
def elu(x: np.ndarray, *, alpha: float = 1.0) -> np.ndarray:
    # expm1 of min(x, 0): the unused branch of where() must not overflow for large x.
    return np.where(x > 0, x, x.dtype.type(alpha) * np.expm1(np.minimum(x, 0)))


@one_output("Selu", since=6)
def selu(x: np.ndarray, *, alpha: float = 1.67326319217681884765625,
         gamma: float = 1.05070102214813232421875) -> np.ndarray:
    return x.dtype.type(gamma) * elu(x, alpha=alpha)


@one_output("Selu")
def selu_1(x: np.ndarray, *, alpha: float = 1.6732, gamma: float = 1.0507) -> np.ndarray:
    return selu(x, alpha=alpha, gamma=gamma)  # opset 1 had rounded default constants


@one_output("Celu")
def celu(x: np.ndarray, *, alpha: float = 1.0) -> np.ndarray:
    a = x.dtype.type(alpha)
    return np.maximum(x, 0) + np.minimum(0, a * np.expm1(np.minimum(x, 0) / a))


@one_output("ThresholdedRelu")
def thresholded_relu(x: np.ndarray, *, alpha: float = 1.0) -> np.ndarray:
    return np.where(x > x.dtype.type(alpha), x, 0).astype(x.dtype)


@one_output("Mod")
def mod(a: np.ndarray, b: np.ndarray, *, fmod: int = 0) -> np.ndarray:
    # fmod=1 keeps the dividend's sign (C's fmod); 0 the divisor's (Python's %), ints only.
    return (np.fmod(a, b) if fmod else np.mod(a, b)).astype(a.dtype, copy=False)


@one_output("BitShift")
def bit_shift(x: np.ndarray, y: np.ndarray, *, direction: str) -> np.ndarray:
    return (np.left_shift if direction == "LEFT" else np.right_shift)(x, y).astype(x.dtype)


@one_output("HardSigmoid")
def hard_sigmoid(x: np.ndarray, *, alpha: float = 0.2, beta: float = 0.5) -> np.ndarray:
    return np.clip(x.dtype.type(alpha) * x + x.dtype.type(beta), 0, 1)


@one_output("Shrink")
def shrink(x: np.ndarray, *, bias: float = 0.0, lambd: float = 0.5) -> np.ndarray:
    bias, lambd = x.dtype.type(bias), x.dtype.type(lambd)
    return np.where(x < -lambd, x + bias, np.where(x > lambd, x - bias, 0)).astype(x.dtype)


@one_output("PRelu", since=7)
def prelu(x: np.ndarray, slope: np.ndarray) -> np.ndarray:
    return np.where(x < 0, x * np.broadcast_to(slope, x.shape), x)  # slope broadcasts to x only


@one_output("PRelu")
def prelu_6(x: np.ndarray, slope: np.ndarray) -> np.ndarray:
    # Before opset 7 a slope that is neither one value nor x-shaped holds one value per channel
    # (axis 1), as PyTorch and Caffe2 exported it; one value is shared by every element (of a
    # scalar x too, which a [1] slope would not broadcast to).
    if slope.size == 1:
        slope = slope.reshape(())
    elif slope.shape != x.shape:
        slope = legacy_broadcast(x, slope, broadcast=1, axis=1)
    return prelu(x, slope)


@one_output("Clip")
def clip(x: np.ndarray, min: np.ndarray | float | None = None,  # noqa: A002 ONNX's names
         max: np.ndarray | float | None = None) -> np.ndarray:
    # Attrs until opset 11, optional inputs after; the names are the same so one function serves
    # both. Clip-6's default bounds are +-FLT_MAX, which differ from "no bound" only for +-inf
    # inputs; None avoids overflowing the bound when cast to float16.
    return np.clip(x, min, max)


_VARIADIC: dict[str, Callable[..., np.ndarray]] = {
    "Max": lambda *xs: functools.reduce(np.maximum, xs),
    "Min": lambda *xs: functools.reduce(np.minimum, xs),
    "Mean": lambda *xs: functools.reduce(np.add, xs) / len(xs),
}


def _register_variadic(op: str, fn: Callable[..., np.ndarray]) -> None:
    @one_output(op)
    def same_shape(*xs: np.ndarray) -> np.ndarray:
        if len({x.shape for x in xs}) > 1:  # no broadcasting before opset 8
            raise ValueError(f"{op} before opset 8 needs equal shapes, got {[x.shape for x in xs]}")
        return fn(*xs)

    one_output(op, since=8)(fn)


for _op, _fn in _VARIADIC.items():
    _register_variadic(_op, _fn)


@one_output("Sum")
def sum_6(*xs: np.ndarray) -> np.ndarray:
    if len({x.shape for x in xs}) > 1:  # no broadcasting before opset 8
        raise ValueError(f"Sum before opset 8 needs equal shapes, got {[x.shape for x in xs]}")
    return sum_(*xs)


@one_output("Sum", since=8, writes_out=True)
def sum_(*xs: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    # The first add writes out; each later one reads it back, so out must not hold a later
    # input: out is written from the add after the last input it holds (which input that is
    # is asked once, not at every add of every later input: 8000 inputs, 32M asks)
    held = -1 if out is None else \
        max((i for i, x in enumerate(xs) if np.may_share_memory(out, x)), default=-1)
    acc = xs[0]
    for i, x in enumerate(xs[1:], start=1):
        shape = acc.shape if acc.shape == x.shape else np.broadcast_shapes(acc.shape, x.shape)
        into = fits(out, shape, np.result_type(acc, x)) if i >= held else None
        acc = call(np.add, acc, x, out=into)
    return acc


one_output("Where")(np.where)  # condition ? x : y, the three broadcast together (opset 9)
