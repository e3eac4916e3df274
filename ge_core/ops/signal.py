"""Signal ops: DFT, STFT, the window generators and MelWeightMatrix. A complex tensor has a
trailing axis of 2 (real, imaginary)."""
from __future__ import annotations

from ge_core.graph.ge_tensor import UNKNOWN_DIM
from ge_core.graph.types import DataType
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register
from ge_core.ops.shape_rules import ShapeError, normalize_axis, one_value


def _scalar(ctx: InferShapeContext, idx: int) -> int | None:
    if not ctx.has_input(idx):
        return None
    value = ctx.const_ints(idx)
    return None if value is None else value[0]


def _output_type(ctx: InferShapeContext) -> DataType:
    return ctx.dtype_attr("output_datatype") or DataType.DT_FLOAT


@register("DFT")
def _dft(ctx: InferShapeContext) -> None:
    # x's shape, the transformed axis dft_length long (half + 1 if onesided), complex pairs
    # last (one real value for an inverse onesided transform).
    x = ctx.dims(0)
    if x is None:
        return ctx.set_output(0, None, ctx.dtype(0))
    if ctx.opset >= 20:
        axis = _scalar(ctx, 2) if ctx.has_input(2) else -2
        if axis is None:
            return ctx.set_output(0, (UNKNOWN_DIM,) * len(x), ctx.dtype(0))
    else:
        axis = int(ctx.attr("axis", 1))
    if axis in (-1, len(x) - 1):   # ONNX counts a negative axis in the whole shape, as numpy
        raise ShapeError(f"axis {axis} is the trailing real/imaginary axis, not a signal axis")
    axis = normalize_axis(axis, len(x))
    inverse, onesided = ctx.attr("inverse", 0), ctx.attr("onesided", 0)
    length = _scalar(ctx, 1)
    if length is not None and length < 1:
        raise ShapeError(f"dft_length {length} is not positive")
    if ctx.has_input(1) and length is None:
        n = UNKNOWN_DIM
    elif inverse and onesided:
        n = length if length is not None else (
            UNKNOWN_DIM if x[axis] == UNKNOWN_DIM else 2 * (x[axis] - 1))
    else:
        n = length if length is not None else x[axis]
        if onesided and n != UNKNOWN_DIM:
            n = n // 2 + 1
    if n != UNKNOWN_DIM and n < 1:   # an inverse onesided DFT of a 1-long axis
        raise ShapeError(f"the DFT along axis {axis} ({x[axis]} long) would be {n} long")
    out = list(x)
    out[axis] = n
    out[-1] = 1 if inverse and onesided else 2
    ctx.set_output(0, tuple(out), ctx.dtype(0))


@register("STFT")
def _stft(ctx: InferShapeContext) -> None:
    # (batch, frames, bins, 2): frames = 1 + (length - frame_length) // frame_step.
    x = ctx.dims(0)
    for idx, what in ((1, "frame_step"), (3, "frame_length")):
        if ctx.has_input(idx):
            one_value(ctx.dims(idx), what)
    step, frame = _scalar(ctx, 1), _scalar(ctx, 3)
    if frame is None and ctx.has_input(2):
        window = ctx.dims(2)
        frame = None if window is None or window[0] == UNKNOWN_DIM else window[0]
    batch = UNKNOWN_DIM if x is None else x[0]
    for name, value in (("frame_step", step), ("frame_length", frame)):
        if value is not None and value < 1:
            raise ShapeError(f"{name} {value} is not positive")
    if frame is not None and x is not None and len(x) > 1 and frame > x[1] != UNKNOWN_DIM:
        raise ShapeError(f"frame_length {frame} is past the signal's {x[1]} samples")
    frames = bins = UNKNOWN_DIM
    if frame is not None:
        bins = frame // 2 + 1 if ctx.attr("onesided", 1) else frame
        if step is not None and x is not None and x[1] != UNKNOWN_DIM:
            frames = 1 + (x[1] - frame) // step
    ctx.set_output(0, (batch, frames, bins, 2), ctx.dtype(0))


@register("HannWindow", "HammingWindow", "BlackmanWindow")
def _window(ctx: InferShapeContext) -> None:
    one_value(ctx.dims(0), "size")
    size = _scalar(ctx, 0)
    ctx.set_output(0, (UNKNOWN_DIM if size is None else size,), _output_type(ctx))


@register("MelWeightMatrix")
def _mel_weight_matrix(ctx: InferShapeContext) -> None:
    # (dft_length // 2 + 1, num_mel_bins)
    mels, n_fft = _scalar(ctx, 0), _scalar(ctx, 1)
    ctx.set_output(0, (UNKNOWN_DIM if n_fft is None else n_fft // 2 + 1,
                       UNKNOWN_DIM if mels is None else mels), _output_type(ctx))
