"""Neural-network ops: convolution, pooling, normalisation, dropout, softmax.

Sliding-window ops share one rule: output length per spatial axis from kernel, strides,
dilations, pads or auto_pad, and (pools only) ceil_mode.
"""
from __future__ import annotations

import math

from ge_core.graph.ge_tensor import UNKNOWN_DIM
from ge_core.graph.types import DataType
from ge_core.ops.elementwise import keep_shape
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register
from ge_core.ops.shape_rules import (Dims, ShapeError, normalize_axes, same_pads, unknown_dims,
                                     window_out)
from npu_emu.op_impl.window_geometry import check_output_padding, check_transpose_output

@register("Softmax", "LogSoftmax", "Hardmax", "InstanceNormalization", "LpNormalization")
def _within_tensor(ctx: InferShapeContext) -> None:
    keep_shape(ctx)  # y: x's shape -- these normalise within the tensor


@register("LRN")
def _lrn(ctx: InferShapeContext) -> None:
    x = ctx.dims(0)
    if x is not None and len(x) < 2:
        raise ShapeError(f"x {list(x)} is not [N, C, ...]: LRN sums across channels")
    keep_shape(ctx)


@register("MeanVarianceNormalization")
def _mean_variance_normalization(ctx: InferShapeContext) -> None:
    x = ctx.dims(0)
    if x is not None:   # over N, H and W unless told: a 1-D x has no axis 2
        normalize_axes(ctx.ints_attr("axes") or [0, 2, 3], len(x))
    keep_shape(ctx)


def _spatial(ctx: InferShapeContext, sizes: tuple[int, ...], kernel: list[int],
             ceil_mode: bool = False) -> tuple[int, ...]:
    n = len(sizes)
    strides = ctx.ints_attr("strides") or [1] * n
    dilations = ctx.ints_attr("dilations") or [1] * n
    pads = ctx.ints_attr("pads") or [0] * (2 * n)
    auto_pad = ctx.attr("auto_pad", "NOTSET")
    if len(kernel) != n:
        raise ShapeError(f"kernel {kernel} does not fit {n} spatial dims")
    out = []
    for i, size in enumerate(sizes):
        begin, end = pads[i], pads[i + n]
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            if size == UNKNOWN_DIM:
                out.append(UNKNOWN_DIM)
                continue
            begin, end = same_pads(size, kernel[i], strides[i], dilations[i],
                                   auto_pad == "SAME_UPPER")
        elif auto_pad == "VALID":
            begin = end = 0
        out.append(window_out(size, kernel[i], strides[i], dilations[i], begin, end, ceil_mode))
    return tuple(out)


def _layout(ctx: InferShapeContext, w_idx: int = 1) -> tuple[int, int, tuple[int, ...]] | None:
    """(N, C, spatial dims) of x, with the rank taken from the weight when x's is unknown."""
    x = ctx.dims(0)
    if x is None:
        w = ctx.dims(w_idx) if ctx.has_input(w_idx) else None
        return None if w is None else (UNKNOWN_DIM, UNKNOWN_DIM, (UNKNOWN_DIM,) * (len(w) - 2))
    if len(x) < 3:
        raise ShapeError(f"input rank {len(x)} has no spatial dims")
    return x[0], x[1], x[2:]


def conv_dims(ctx: InferShapeContext, w_idx: int = 1) -> Dims:
    """A convolution's y[N, M, ...]: M = w.shape[0] filters, spatial dims by the window rule
    (w is input ``w_idx``: 1 in Conv, 3 in QLinearConv)."""
    layout, w = _layout(ctx, w_idx), ctx.dims(w_idx)
    if layout is None:
        return None
    n, c, sizes = layout
    if w is not None:
        _check_filter(w, c, len(sizes), int(ctx.attr("group", 1)), ctx.ints_attr("kernel_shape"))
    kernel = ctx.ints_attr("kernel_shape") or (list(w[2:]) if w else [UNKNOWN_DIM] * len(sizes))
    m = w[0] if w else UNKNOWN_DIM
    return (n, m) + _spatial(ctx, sizes, kernel)


def _check_filter(w: tuple[int, ...], c: int, spatial: int, group: int,
                  kernel: list[int] | None) -> None:
    """The filter w[M, C/group, k...] fits x[N, C, ...] (GE's Conv InferShape checks the same:
    the kernel would otherwise multiply operands that do not fit)."""
    if len(w) != spatial + 2:
        raise ShapeError(f"filter {list(w)} has rank {len(w)}, x has rank {spatial + 2}")
    if group < 1:
        raise ShapeError(f"group {group} is not positive")
    if UNKNOWN_DIM not in (c, w[1]) and c != w[1] * group:
        raise ShapeError(f"x has {c} channels, filter {list(w)} in {group} group(s) takes "
                         f"{w[1] * group}")
    _check_kernel_shape(kernel, w)


def _check_kernel_shape(kernel: list[int] | None, w: tuple[int, ...]) -> None:
    """A kernel_shape given repeats the filter's spatial dims (the kernels take the filter's;
    npu_emu's window_geometry.check_kernel_shape at run time)."""
    if kernel and any(k != d for k, d in zip(kernel, w[2:]) if d != UNKNOWN_DIM):
        raise ShapeError(f"kernel_shape {kernel} differs from filter {list(w)}'s spatial dims")


@register("Conv")
def _conv(ctx: InferShapeContext) -> None:
    y = conv_dims(ctx)
    b = ctx.dims(2) if ctx.has_input(2) else None
    m = y[1] if y is not None else UNKNOWN_DIM
    if b is not None and (len(b) != 1 or UNKNOWN_DIM not in (m, b[0]) and b[0] != m):
        raise ShapeError(f"bias {list(b)} is not one value per filter ([{m}])")
    ctx.set_output(0, y, ctx.dtype(0))


@register("ConvTranspose")
def _conv_transpose(ctx: InferShapeContext) -> None:
    # y[N, w.shape[1] * group, ...]: out = stride*(in-1) + output_padding + eff_kernel - pads,
    # or output_shape when given, or in*stride with auto_pad SAME.
    layout, w = _layout(ctx), ctx.dims(1)
    if layout is None:
        return ctx.set_output(0, None, ctx.dtype(0))
    n, _, sizes = layout
    rank = len(sizes)
    m = w[1] * int(ctx.attr("group", 1)) if w and w[1] != UNKNOWN_DIM else UNKNOWN_DIM
    given = ctx.ints_attr("kernel_shape")
    if w:
        _check_kernel_shape(given, w)
    kernel = given or (list(w[2:]) if w else [UNKNOWN_DIM] * rank)
    strides = ctx.ints_attr("strides") or [1] * rank
    dilations = ctx.ints_attr("dilations") or [1] * rank
    out_pad = ctx.ints_attr("output_padding") or [0] * rank
    try:
        check_output_padding(out_pad, strides, dilations)
    except ValueError as err:   # the kernel's own check of its attributes
        raise ShapeError(str(err)) from None
    output_shape = ctx.ints_attr("output_shape")
    if output_shape:
        return ctx.set_output(0, (n, m) + tuple(output_shape[-rank:]), ctx.dtype(0))
    pads = ctx.ints_attr("pads") or [0] * (2 * rank)
    same = ctx.attr("auto_pad", "NOTSET") in ("SAME_UPPER", "SAME_LOWER")
    spatial, computed_from = [], []   # the input dims the pads computed from, else 0
    for i, size in enumerate(sizes):
        computed_from.append(0)
        if UNKNOWN_DIM in (size, kernel[i]):
            spatial.append(UNKNOWN_DIM)
        elif same:
            spatial.append(size * strides[i])
        else:   # a -1 from the pads is no unknown dim
            spatial.append(strides[i] * (size - 1) + out_pad[i] + (kernel[i] - 1) * dilations[i]
                           + 1 - pads[i] - pads[i + rank])
            computed_from[-1] = size
    try:
        check_transpose_output(spatial, computed_from, pads)
    except ValueError as err:   # the kernel's own check of its output
        raise ShapeError(str(err)) from None
    ctx.set_output(0, (n, m) + tuple(spatial), ctx.dtype(0))


@register("MaxPool", "AveragePool", "LpPool")
def _pool(ctx: InferShapeContext) -> None:
    # y[N, C, ...] by the window rule; MaxPool's optional output 1 is the int64 argmax indices.
    layout = _layout(ctx)
    dims: Dims = None
    if layout is not None:
        n, c, sizes = layout
        kernel = ctx.ints_attr("kernel_shape")
        if kernel is None:
            raise ShapeError("kernel_shape is required")
        dims = (n, c) + _spatial(ctx, sizes, kernel, bool(ctx.attr("ceil_mode", 0)))
    ctx.set_output(0, dims, ctx.dtype(0))
    if ctx.n_outputs > 1:
        ctx.set_output(1, dims, DataType.DT_INT64)


@register("GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool")
def _global_pool(ctx: InferShapeContext) -> None:
    # y[N, C, 1, 1, ...]: one window covers each channel's whole plane.
    x = ctx.dims(0)
    ctx.set_output(0, None if x is None else x[:2] + (1,) * (len(x) - 2), ctx.dtype(0))


@register("BatchNormalization")
def _batch_norm(ctx: InferShapeContext) -> None:
    # y: x's shape. Optional outputs (training statistics, and before opset 14 the saved
    # mean/var) have the per-channel shape of scale; running mean/var take mean's dtype.
    ctx.set_output(0, ctx.dims(0), ctx.dtype(0))
    for i in range(1, ctx.n_outputs):
        ctx.set_output(i, ctx.dims(1), ctx.dtype(3) if i < 3 else ctx.dtype(0))


@register("Dropout")
def _dropout(ctx: InferShapeContext) -> None:
    # y: x's shape; the optional mask is bool from opset 10 (x's dtype before).
    ctx.set_output(0, ctx.dims(0), ctx.dtype(0))
    if ctx.n_outputs > 1:
        ctx.set_output(1, ctx.dims(0), DataType.DT_BOOL if ctx.opset >= 10 else ctx.dtype(0))


@register("Col2Im")
def _col2im(ctx: InferShapeContext) -> None:
    # (N, C, *image_shape), C = the columns' rows / prod(block_shape).
    x, image, block = ctx.dims(0), ctx.const_dims(1, "image_shape"), ctx.const_ints(2)
    if block is not None and min(block, default=1) < 1:
        raise ShapeError(f"block_shape {block} holds a block dim below 1")
    n = UNKNOWN_DIM if x is None else x[0]
    c = UNKNOWN_DIM
    if x is not None and block is not None and x[1] != UNKNOWN_DIM:
        c = x[1] // math.prod(block)
    if image is None:
        spatial = ctx.dims(1)
        return ctx.set_output(0, None if spatial is None or spatial[0] == UNKNOWN_DIM
                              else (n, c) + unknown_dims(spatial[0], "image_shape's length"),
                              ctx.dtype(0))
    ctx.set_output(0, (n, c, *image), ctx.dtype(0))
