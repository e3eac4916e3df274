"""Elementwise ops: one shape rule per family, listed as tables."""
from __future__ import annotations

from ge_core.graph.ge_tensor import UNKNOWN_DIM
from ge_core.graph.types import DataType
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register
from ge_core.ops.shape_rules import ShapeError, broadcast, broadcasts_to

# y = f(x): x's shape and dtype.
UNARY = ("Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Ceil", "Celu", "Clip", "Cos",
         "Cosh", "Elu", "Erf", "Exp", "Floor", "HardSigmoid", "HardSwish", "Identity", "LeakyRelu",
         "Log", "Mish", "Neg", "Not", "Reciprocal", "Relu", "Round", "Selu", "Shrink", "Sigmoid",
         "Sign", "Sin", "Sinh", "Softplus", "Softsign", "Sqrt", "Tan", "Tanh", "ThresholdedRelu")
# z = a op b with numpy broadcasting, z has a's dtype.
BINARY = ("Add", "Sub", "Mul", "Div", "Pow", "Mod", "BitShift")
# z = a op b with numpy broadcasting, z is bool.
COMPARE = ("Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "And", "Or", "Xor")
# y = f(x0, x1, ...) with numpy broadcasting over all inputs.
VARIADIC = ("Sum", "Max", "Min", "Mean")


@register(*UNARY)
def keep_shape(ctx: InferShapeContext) -> None:
    ctx.set_output(0, ctx.dims(0), ctx.dtype(0))


def _one_type(ctx: InferShapeContext, inputs: range) -> None:
    """ONNX gives these inputs one type parameter (Add's A and B are both T): inputs of two
    types are refused here, where a kernel would meet them as numpy's error (an Add of bf16
    and str, at an opset whose type check ONNX stops at the bf16)."""
    known = [(i, ctx.dtype(i)) for i in inputs
             if ctx.dtype(i) not in (DataType.DT_UNDEFINED, DataType.DT_VARIANT)]
    for i, dtype in known[1:]:
        if dtype != known[0][1]:
            raise ShapeError(f"input {known[0][0]} is {known[0][1].short} and input {i} "
                             f"{dtype.short}: {ctx.node.type} takes one type for "
                             f"{'both' if len(inputs) == 2 else 'all of them'}")


@register(*BINARY, *COMPARE)
def _binary(ctx: InferShapeContext) -> None:
    if ctx.node.type != "Pow":   # Pow alone takes a base and an exponent of two types
        _one_type(ctx, range(2))
    dtype = DataType.DT_BOOL if ctx.node.type in COMPARE else ctx.dtype(0)
    if ctx.opset < 7:
        # Before opset 7, b either had a's shape or was broadcast to it (`broadcast=1`, `axis`).
        a, b = ctx.dims(0), ctx.dims(1)
        if a is not None and b is not None and \
                not _legacy_fits(b, a, int(ctx.attr("broadcast", 0)), ctx.attr("axis")):
            raise ShapeError(f"b {list(b)} does not fit a {list(a)} (broadcast="
                             f"{ctx.attr('broadcast', 0)}, axis={ctx.attr('axis')}; opset "
                             f"{ctx.opset} broadcasts only b, and only when asked)")
        ctx.set_output(0, a, dtype)
    else:
        ctx.set_output(0, broadcast(ctx.dims(0), ctx.dims(1)), dtype)


@register(*VARIADIC)
def _variadic(ctx: InferShapeContext) -> None:
    _one_type(ctx, range(ctx.n_inputs))
    ctx.set_output(0, broadcast(*(ctx.dims(i) for i in range(ctx.n_inputs))), ctx.dtype(0))


@register("PRelu")
def _prelu(ctx: InferShapeContext) -> None:
    # y: x's shape. The slope broadcasts to x, never the other way; before opset 7 a slope is
    # one value, x's shape, or one value per channel lined up with x from axis 1.
    x, slope = ctx.dims(0), ctx.dims(1)
    if x is not None and slope is not None:
        fits = broadcasts_to(slope, x) if ctx.opset >= 7 else (
            slope == x or all(d == 1 for d in slope) or len(slope) < len(x)
            and broadcasts_to(slope + (1,) * (len(x) - 1 - len(slope)), x))
        if not fits:
            raise ShapeError(f"slope {list(slope)} does not broadcast to x {list(x)}")
    ctx.set_output(0, x, ctx.dtype(0))


def _legacy_fits(b: tuple[int, ...], a: tuple[int, ...], broadcast: int,
                 axis: int | None) -> bool:
    """Opsets 1-6: b equals a, or (broadcast=1) lines up with a from ``axis`` (suffix when
    absent) and stretches to it (npu_emu's legacy_broadcast does the same)."""
    if not broadcast:
        return len(a) == len(b) and all(UNKNOWN_DIM in (x, y) or x == y for x, y in zip(a, b))
    if axis is not None and b and a:
        pad = len(a) - axis % len(a) - len(b)
        if pad < 0:
            return False
        b = b + (1,) * pad
    return broadcasts_to(b, a)


@register("Where")
def _where(ctx: InferShapeContext) -> None:
    # y = cond ? a : b, all three broadcast; y has a's dtype.
    ctx.set_output(0, broadcast(ctx.dims(0), ctx.dims(1), ctx.dims(2)), ctx.dtype(1))
