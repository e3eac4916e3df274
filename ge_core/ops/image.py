"""Image ops: resampling (Resize, Upsample, GridSample, AffineGrid, RoiAlign), block moves
(SpaceToDepth, DepthToSpace, CenterCropPad, MaxUnpool) and NonMaxSuppression."""
from __future__ import annotations

from ge_core.graph.ge_tensor import UNKNOWN_DIM
from ge_core.graph.types import DataType
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register
from ge_core.ops.shape_rules import ShapeError, normalize_axis, one_list, unknown_dims
from npu_emu.op_impl.image import resize_plan


def _unknown_like(ctx: InferShapeContext, idx: int = 0) -> None:
    x = ctx.dims(idx)
    ctx.set_output(0, None if x is None else (UNKNOWN_DIM,) * len(x), ctx.dtype(idx))


@register("Resize", "Upsample")
def _resize(ctx: InferShapeContext) -> None:
    # Resize-11+: X, roi, scales, sizes (one of the last two); Resize-10 and Upsample-9: X,
    # scales; Upsample-7: the scales attr. Known when x's dims and the scales or sizes are.
    x = ctx.dims(0)
    operands = ("roi", "scales", "sizes") if ctx.node.type == "Resize" and ctx.opset >= 11 \
        else ("scales",)
    for idx, what in enumerate(operands, 1):
        if ctx.has_input(idx):
            one_list(ctx.dims(idx), what)
    if ctx.node.type == "Resize" and ctx.opset >= 11:
        scales, sizes = ctx.const(2), ctx.const(3)
        pending = (ctx.has_input(2) and scales is None) or (ctx.has_input(3) and sizes is None)
    else:
        scales, sizes = ctx.attr("scales"), None
        if scales is None:
            scales = ctx.const(1)
        pending = scales is None
    scales = None if scales is None or len(scales) == 0 else [float(s) for s in scales]
    sizes = None if sizes is None or len(sizes) == 0 else [int(s) for s in sizes]
    if x is None or UNKNOWN_DIM in x or pending or (scales is None and sizes is None):
        return _unknown_like(ctx)
    try:
        out, _ = resize_plan(x, scales, sizes, ctx.ints_attr("axes"),
                             str(ctx.attr("keep_aspect_ratio_policy", "stretch")))
    except ValueError as err:   # the kernel's own check of its operands
        raise ShapeError(str(err)) from None
    ctx.set_output(0, tuple(out), ctx.dtype(0))


@register("GridSample")
def _grid_sample(ctx: InferShapeContext) -> None:
    # (N, C) of x, then the grid's spatial dims.
    x, grid = ctx.dims(0), ctx.dims(1)
    n_c = (UNKNOWN_DIM, UNKNOWN_DIM) if x is None else x[:2]
    ctx.set_output(0, None if grid is None else n_c + grid[1:-1], ctx.dtype(0))


@register("AffineGrid")
def _affine_grid(ctx: InferShapeContext) -> None:
    # (N, *spatial, nd) from size = (N, C, *spatial).
    size = ctx.const_dims(1, "size")
    if size is None:
        theta = ctx.dims(0)
        nd = None if theta is None or theta[1] == UNKNOWN_DIM else theta[1]
        dims = None if nd is None else unknown_dims(nd + 2, "an output rank (2 + theta's dim 1)")
        return ctx.set_output(0, dims, ctx.dtype(0))
    ctx.set_output(0, (size[0], *size[2:], len(size) - 2), ctx.dtype(0))


@register("RoiAlign")
def _roi_align(ctx: InferShapeContext) -> None:
    # (num_rois, C, output_height, output_width)
    x, rois = ctx.dims(0), ctx.dims(1)
    ctx.set_output(0, (UNKNOWN_DIM if rois is None else rois[0],
                       UNKNOWN_DIM if x is None else x[1],
                       ctx.count_attr("output_height", 1), ctx.count_attr("output_width", 1)),
                   ctx.dtype(0))


@register("SpaceToDepth", "DepthToSpace")
def _block_move(ctx: InferShapeContext) -> None:
    # (N, C * b^2, H / b, W / b), or the inverse.
    x = ctx.dims(0)
    if x is None:
        return ctx.set_output(0, None, ctx.dtype(0))
    if len(x) != 4:
        raise ShapeError(f"input of rank {len(x)}, expected 4")
    b = int(ctx.attr("blocksize"))

    def div(d: int, k: int) -> int:
        if d != UNKNOWN_DIM and d % k:
            raise ShapeError(f"dim {d} does not divide by {k} (blocksize {b})")
        return d if d == UNKNOWN_DIM else d // k

    def mul(d: int, k: int) -> int:
        return d if d == UNKNOWN_DIM else d * k

    n, c, h, w = x
    if ctx.node.type == "SpaceToDepth":
        dims = (n, mul(c, b * b), div(h, b), div(w, b))
    else:
        dims = (n, div(c, b * b), mul(h, b), mul(w, b))
    ctx.set_output(0, dims, ctx.dtype(0))


@register("CenterCropPad")
def _center_crop_pad(ctx: InferShapeContext) -> None:
    # x with shape's sizes on axes.
    one_list(ctx.dims(1), "shape")
    x, shape = ctx.dims(0), ctx.const_dims(1, "shape")
    if x is None or shape is None:
        return _unknown_like(ctx)
    axes = ctx.ints_attr("axes") or list(range(len(x)))
    out = list(x)
    for a, d in zip(axes, shape):
        out[normalize_axis(a, len(x))] = d
    ctx.set_output(0, tuple(out), ctx.dtype(0))


@register("MaxUnpool")
def _max_unpool(ctx: InferShapeContext) -> None:
    # output_shape (input 2) if given, else what MaxPool's input must have been.
    x = ctx.dims(0)
    if ctx.has_input(2):
        shape = ctx.const_dims(2, "output_shape")
        if shape is not None:
            return ctx.set_output(0, tuple(shape), ctx.dtype(0))
        return _unknown_like(ctx)
    if x is None:
        return ctx.set_output(0, None, ctx.dtype(0))
    kernel = ctx.ints_attr("kernel_shape")
    nd = len(kernel)
    strides = ctx.ints_attr("strides") or [1] * nd
    pads = ctx.ints_attr("pads") or [0] * (2 * nd)
    spatial = tuple(UNKNOWN_DIM if d == UNKNOWN_DIM
                    else (d - 1) * s - pads[i] - pads[i + nd] + kernel[i]
                    for i, (d, s) in enumerate(zip(x[2:], strides)))
    ctx.set_output(0, x[:2] + spatial, ctx.dtype(0))


@register("NonMaxSuppression")
def _non_max_suppression(ctx: InferShapeContext) -> None:
    ctx.set_output(0, (UNKNOWN_DIM, 3), DataType.DT_INT64)  # [batch, class, box] per kept box
