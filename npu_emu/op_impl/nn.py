"""Neural-network kernels: convolution, pooling, normalisation, dropout (ONNX default domain).

Convolution and pooling share one idea: a strided *window view* of the padded input, shaped
(N, C, *kernel, *out), where element [n, c, k.., o..] is input[n, c, o*stride + k*dilation].
Conv reshapes that view into the im2col matrix and does one matmul per group (a band of output
rows at a time where the matrix would outgrow the cache); a stride-1 conv builds the same
matrix from long runs of the input instead (``_shifted_columns``), or takes Winograd for 3x3
(module ``winograd``, whose transformed weights are kept from call to call), or, with few
outputs for many inputs, multiplies by every kernel row's weights at once and sums the rows'
products (``_row_tap_conv``); pooling folds
the windows one spatial axis at a time, one kernel offset at a time (each a plain strided
slice of the unpadded input, into the outputs whose window it reaches), which is far cheaper
than reducing a materialised window array. ConvTranspose scatters
through the same view, written into its output buffer.

MaxPool's optional Indices output costs an argmax over every window, so it is computed only when
the node has that output (the caller passes ``num_outputs``, see ``kernel_attrs``).
"""
from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided

from npu_emu.op_impl.axis import checked_axis
from npu_emu.op_impl.broadcast import check_one_per, repeated_run, row_by_row
from npu_emu.op_impl.depthwise import depthwise_conv
from npu_emu.op_impl.random import seeded
from npu_emu.op_impl.in_place import fits
from npu_emu.op_impl.prepared import prepared
from npu_emu.op_impl.reduce import dtype_limits
from npu_emu.op_impl.registry import kernel
from npu_emu.op_impl.window_geometry import (Geometry, check_kernel_shape, check_output_padding,
                                             check_transpose_output)
from npu_emu.op_impl.winograd import winograd_conv, winograd_tile


def _per_axis(value: Sequence[int] | None, n: int, default: int) -> tuple[int, ...]:
    return tuple(value) if value else (default,) * n


def _extent(k: int, d: int) -> int:
    return d * (k - 1) + 1


def _split_pads(total: Sequence[int], upper: bool) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Split total padding in two; the odd element goes to the end if ``upper``, else the start."""
    small = tuple(t // 2 for t in total)
    big = tuple(t - t // 2 for t in total)
    return (small, big) if upper else (big, small)


def _geometry(in_shape: Sequence[int], kernel_shape: Sequence[int],
              strides: Sequence[int] | None = None, dilations: Sequence[int] | None = None,
              pads: Sequence[int] | None = None, auto_pad: str = "NOTSET",
              ceil_mode: int = 0) -> Geometry:
    """A window op's geometry: worked out once per input shape and attributes, as a model runs
    the same convs and pools at every execution (8 us of a small conv's 22 in Python)."""
    return _geometry_of(tuple(in_shape), tuple(kernel_shape), _key(strides), _key(dilations),
                        _key(pads), auto_pad, ceil_mode)


def _key(value: Sequence[int] | None) -> tuple[int, ...] | None:
    return tuple(value) if value else None


@functools.lru_cache(maxsize=1024)
def _geometry_of(in_shape: tuple[int, ...], kernel_shape: tuple[int, ...],
                 strides: tuple[int, ...] | None, dilations: tuple[int, ...] | None,
                 pads: tuple[int, ...] | None, auto_pad: str, ceil_mode: int) -> Geometry:
    nd = len(kernel_shape)
    strides = _per_axis(strides, nd, 1)
    dilations = _per_axis(dilations, nd, 1)
    if min(strides, default=1) < 1 or min(dilations, default=1) < 1:
        # ONNX's type inference refuses them for the convs and pools, not for Col2Im: Python's
        # "integer division or modulo by zero"
        raise ValueError(f"strides {list(strides)} and dilations {list(dilations)} are not all "
                         "positive")
    extents = [_extent(k, d) for k, d in zip(kernel_shape, dilations)]
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        out = tuple(-(-n // s) for n, s in zip(in_shape, strides))
        total = [max(0, (o - 1) * s + e - n) for o, s, e, n in zip(out, strides, extents, in_shape)]
        begin, end = _split_pads(total, auto_pad == "SAME_UPPER")
    else:
        pads = _per_axis(None if auto_pad == "VALID" else pads, 2 * nd, 0)
        begin, end = pads[:nd], pads[nd:]
        round_up = [s - 1 if ceil_mode else 0 for s in strides]
        out = [(n + b + p - e + r) // s + 1
               for n, b, p, e, r, s in zip(in_shape, begin, end, extents, round_up, strides)]
        if ceil_mode:  # a window may not start in the end padding (as in ONNX and PyTorch)
            out = [o - ((o - 1) * s >= n + b) for o, s, n, b in zip(out, strides, in_shape, begin)]
        # an empty axis with less padding than a window has no window (shape_rules.window_out)
        out = tuple(max(0, o) if n == 0 else o for o, n in zip(out, in_shape))
    return Geometry(kernel_shape, strides, dilations, begin, end, out)


def _spatial(starts: Sequence[int], sizes: Sequence[int]) -> tuple[slice, ...]:
    """Index of the box [start, start + size) on every spatial axis of an (N, C, ...) array."""
    return (slice(None), slice(None), *(slice(b, b + n) for b, n in zip(starts, sizes)))


def _padded(x: np.ndarray, g: Geometry, value: float) -> np.ndarray:
    """``x`` padded with ``value`` just enough for every window of ``g`` to lie inside."""
    spatial = x.shape[2:]
    end = [max(0, (o - 1) * s + _extent(k, d) - n - b)
           for o, s, k, d, n, b in zip(g.out, g.strides, g.kernel, g.dilations, spatial, g.begin)]
    if not any(g.begin) and not any(end):
        return x
    padded_shape = (b + n + e for b, n, e in zip(g.begin, spatial, end))
    xp = np.full((*x.shape[:2], *padded_shape), value, x.dtype)
    xp[_spatial(g.begin, spatial)] = x
    return xp


def _windows(a: np.ndarray, g: Geometry, writeable: bool = False) -> np.ndarray:
    """View (N, C, *kernel, *out) of ``a``: [n, c, k.., o..] is a[n, c, o*stride + k*dilation]."""
    spatial = a.strides[2:]
    return as_strided(a, (*a.shape[:2], *g.kernel, *g.out),
                      (*a.strides[:2], *(t * d for t, d in zip(spatial, g.dilations)),
                       *(t * s for t, s in zip(spatial, g.strides))), writeable=writeable)


def _channel_shape(x: np.ndarray) -> tuple[int, ...]:
    """Shape that broadcasts a per-channel vector against (N, C, *spatial)."""
    return (-1, *(1,) * (x.ndim - 2))


def _add_bias(y: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """y + b per channel, into ``out`` (y itself by default). The bias repeats over the spatial
    dims, the rows ``broadcast.call`` finds by looking; here they are known."""
    with row_by_row(math.prod(y.shape[2:])):
        return np.add(y, b.reshape(_channel_shape(y)), out=y if out is None else out)


def _shifted_columns(x: np.ndarray, g: Geometry) -> np.ndarray:
    """The im2col columns (N, C * kernel, out) of a stride-1 conv of ``x`` (unpadded), built
    by copies of long runs: the window view's copy runs one short inner loop per output row,
    and on 7..14-wide maps that loop, not the bytes, was most of a conv's time.

    First the innermost kernel axis's kw shifts: ``shifted[n, c, j, r.., q]`` is the padded
    input at rows r.. (the outer axes, over every row an outer tap reads) and column
    q + j * dilation. Each outer tap's rows of that are then one run per (n, c, j): the rows
    a tap reads are consecutive, and each is exactly the output's width. The padding is the
    zeros ``shifted`` holds there; the columns come in the weights' own (C, *kernel) order, so
    the one matmul is im2col's (bit for bit: the same matrix). Measured, whole convs, against
    the window view's im2col and the per-tap and flat paths this replaced, on the light models'
    stride-1 convs that Winograd does not take: 1.02-1.13x faster, DenseNet's 128-to-32 3x3s
    1.2x (14x14) and 1.35-1.45x (7x7), AlexNet's grouped 3x3s 1.8x; SqueezeNet's 55x55 and
    ZFNet's 12x12 ones within the noise."""
    n, c = x.shape[:2]
    *outer_k, kw = g.kernel
    *outer_d, _ = g.dilations
    *outer_o, ow = g.out
    shifted = _shifts(x, g)
    if not outer_k:   # 1-D: the shifts are the columns
        return shifted.reshape(n, c * kw, ow)
    cols = np.empty((n, c, *outer_k, kw, *outer_o, ow), x.dtype)
    for taps in np.ndindex(*outer_k):
        reads = (slice(t * d, t * d + o) for t, d, o in zip(taps, outer_d, outer_o))
        cols[(slice(None), slice(None), *taps)] = shifted[(slice(None),) * 3 + (*reads,)]
    return cols.reshape(n, -1, math.prod(g.out))


def _shifts(x: np.ndarray, g: Geometry) -> np.ndarray:
    """``_shifted_columns``'s first step: ``shifted[n, c, j, r.., q]``, the padded input at
    rows r.. (the outer axes, over every row an outer tap reads) and column q + j * dilation,
    for each tap j of the innermost kernel axis."""
    n, c = x.shape[:2]
    *outer_k, kw = g.kernel
    *outer_d, dw = g.dilations
    *outer_o, ow = g.out
    *outer_b, bw = g.begin
    extents = [o + (k - 1) * d for o, k, d in zip(outer_o, outer_k, outer_d)]
    shape = (n, c, kw, *extents, ow)
    if len(outer_k) <= 1 and ow == x.shape[-1] and x.flags.c_contiguous:
        shifted = np.empty(shape, x.dtype)
        _shift_whole(x, shifted, outer_b[0] * ow if outer_k else 0, bw, dw)
    else:
        shifted = np.zeros(shape, x.dtype)
        _shift_rows(x, shifted, outer_b, bw, dw)
    return shifted


def _shift_whole(x: np.ndarray, shifted: np.ndarray, before: int, bw: int, dw: int) -> None:
    """``_shifted_columns``'s shifts of a 1-D or 2-D ``x`` whose rows are the output's width,
    into an uninitialised ``shifted``: each one run per channel of the flattened input,
    ``before`` elements in (the padding rows above it, zeroed, as those below are: a zeroed
    allocation cost DenseNet's 56x56 convs 170 us of 5 MB each). A shift's reads past a row's
    end land on the next row: those columns, padding, are zeroed after (a 7x7 map's copy in
    6-element runs took three times as long)."""
    n, c, kw = shifted.shape[:3]
    ow = shifted.shape[-1]
    src, into = x.reshape(n, c, -1), shifted.reshape(n, c, kw, -1)
    for j in range(kw):
        shift = j * dw - bw   # output column q reads input column q + shift
        lo, hi = max(0, before - shift), min(into.shape[-1], before - shift + src.shape[-1])
        if lo < hi:   # else the shift passes the width: all its columns are wrapped ones
            into[:, :, j, :lo] = 0
            into[:, :, j, lo:hi] = src[:, :, lo - before + shift:hi - before + shift]
            into[:, :, j, hi:] = 0
        wrapped = slice(max(0, ow - shift), None) if shift > 0 else slice(0, max(0, -shift))
        shifted[:, :, j, ..., wrapped] = 0


def _shift_rows(x: np.ndarray, shifted: np.ndarray, outer_b: Sequence[int], bw: int,
                dw: int) -> None:
    """``_shifted_columns``'s shifts, a row at a time: the input's rows into the output's."""
    kw, *extents, ow = shifted.shape[2:]
    rows = [(max(0, b), min(e, size + b)) for b, e, size in zip(outer_b, extents, x.shape[2:-1])]
    if not all(lo < hi for lo, hi in rows):
        return
    into = tuple(slice(lo, hi) for lo, hi in rows)
    src = tuple(slice(lo - b, hi - b) for (lo, hi), b in zip(rows, outer_b))
    for j in range(kw):
        lo, hi = max(0, bw - j * dw), min(ow, x.shape[-1] + bw - j * dw)
        if lo < hi:
            shifted[(slice(None), slice(None), j, *into, slice(lo, hi))] = \
                x[(Ellipsis, *src, slice(lo + j * dw - bw, hi + j * dw - bw))]


def _winograd_tile(x: np.ndarray, w: np.ndarray, g: Geometry, group: int) -> int:
    """The Winograd tile size conv takes (see ``winograd.winograd_tile``), 0 for none: 3x3,
    stride 1, no dilation, group 1, float32, 2-D."""
    if not (group == 1 and x.ndim == 4 and x.dtype == np.float32 and w.dtype == np.float32
            and g.kernel == (3, 3) and g.strides == (1, 1) and g.dilations == (1, 1)):
        return 0
    return winograd_tile(x, w, g.out)


def channel_shuffled(x: np.ndarray, group: int) -> np.ndarray:
    """``x`` (N, C, ...) with its channels shuffled in ``group`` groups, as ShuffleNet's
    Reshape (N, g, C/g, ...) -> Transpose (0, 2, 1, ...) -> Reshape (N, C, ...) does: channel
    i * g + j is x's j * C/g + i. (``group`` divides C: conv checks.)"""
    n, c = x.shape[:2]
    groups = x.reshape(n, group, c // group, *x.shape[2:])
    return np.ascontiguousarray(groups.swapaxes(1, 2)).reshape(x.shape)


@kernel("Conv", writes_out=True)
def conv(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None, *, auto_pad: str = "NOTSET",
         dilations: list[int] | None = None, group: int = 1, kernel_shape: list[int] | None = None,
         pads: list[int] | None = None, strides: list[int] | None = None,
         input_shuffle_group: int = 1,
         out: Sequence[np.ndarray] | None = None) -> tuple[np.ndarray]:
    """ONNX's Conv. ``input_shuffle_group`` (not ONNX; ShuffleChannelConvFusionPass's) > 1:
    the conv of x's channels shuffled in that many groups (``channel_shuffled``), which a
    depthwise conv reads in shuffled order as it copies its input anyway."""
    n, m = x.shape[0], w.shape[0]
    check_kernel_shape(kernel_shape, w.shape)
    check_one_per((m,), "filter", bias=b)
    g = _geometry(x.shape[2:], w.shape[2:], strides, dilations, pads, auto_pad)
    dst = fits(out[0] if out else None, (n, m, *g.out), np.result_type(x, w), x, w, b)
    if input_shuffle_group != 1 and (input_shuffle_group < 1 or x.shape[1] % input_shuffle_group):
        raise ValueError(f"input_shuffle_group {input_shuffle_group} does not divide the "
                         f"{x.shape[1]} input channels")
    if x.size == 0 or m == 0 or 0 in g.out:   # no outputs, or sums over no inputs: 0 (+ bias)
        y = np.empty((n, m, *g.out), np.result_type(x, w)) if dst is None else dst
        y.fill(0)
    else:
        y = depthwise_conv(x, w, g, group, dst, input_shuffle_group)
    if y is None:
        if input_shuffle_group > 1:
            x = channel_shuffled(x, input_shuffle_group)
        if _row_taps(x, w, g, group):
            y = _row_tap_conv(x, w, g, dst)
        elif tile := _winograd_tile(x, w, g, group):
            return (winograd_conv(x, w, b, g.begin, g.out, tile, dst),)
        else:
            y = _im2col_conv(x, w, g, group, dst)
    if b is not None:
        _add_bias(y, b)
    return (y,)


def _im2col_conv(x: np.ndarray, w: np.ndarray, g: Geometry, group: int,
                 dst: np.ndarray | None) -> np.ndarray:
    """The conv without bias by im2col: (N, G, C/G * kernel, out) columns, one matmul per
    group. Columns that would outgrow the cache go a band of output rows at a time; else a
    strided conv's are a copy of the window view, an unpadded 1x1 stride-1 conv's the input
    itself (a plain matmul: ShuffleNet's and ResNet's many 1x1 convs), any other's built by
    ``_shifted_columns``."""
    n, m = x.shape[0], w.shape[0]
    p = math.prod(g.out)
    if group == 1 and w[0].size * p > 4 * _IM2COL_BAND:
        return _banded_im2col_conv(_padded(x, g, 0), w, g, dst)
    if any(s != 1 for s in g.strides):
        cols = _windows(_padded(x, g, 0), g)
    elif math.prod(g.kernel) == 1 and not any(g.begin) and tuple(g.out) == x.shape[2:]:
        cols = x
    else:
        cols = _shifted_columns(x, g)
    cols = cols.reshape(n, group, -1, p)
    w_groups = w.reshape(group, m // group, -1)
    if dst is None:
        return np.matmul(w_groups, cols).reshape(n, m, *g.out)
    np.matmul(w_groups, cols, out=dst.reshape(n, group, m // group, -1))
    return dst


_IM2COL_BAND = 1 << 18  # elements of one band's columns (1 MB of float32: the L2 cache)


def _banded_im2col_conv(xp: np.ndarray, w: np.ndarray, g: Geometry,
                        dst: np.ndarray | None) -> np.ndarray:
    """A group-1 im2col conv whose column matrix would outgrow the cache, built and multiplied
    a band of outer output rows at a time, each band's product written into its rows of the
    output: the stems of ResNet-50, DenseNet and Inception (3 channels, 7x7 stride 2: a 7 MB
    matrix) and AlexNet's 11x11 measured 10-20% faster, as the columns are read by the matmul
    while still in cache and the matmuls' shapes suit BLAS better."""
    n, m, k = xp.shape[0], w.shape[0], w[0].size
    out0, inner = g.out[0], math.prod(g.out[1:])
    y = np.empty((n, m, *g.out), np.result_type(xp, w)) if dst is None else dst
    flat_y, win, w_mat = y.reshape(n, m, -1), _windows(xp, g), w.reshape(m, k)
    rows = max(1, _IM2COL_BAND // (k * inner))
    for r0 in range(0, out0, rows):
        r1 = min(out0, r0 + rows)
        cols = win[(slice(None),) * (2 + len(g.kernel)) + (slice(r0, r1),)].reshape(n, k, -1)
        np.matmul(w_mat, cols, out=flat_y[:, :, r0 * inner:r1 * inner])
    return y


def _row_taps(x: np.ndarray, w: np.ndarray, g: Geometry, group: int) -> bool:
    """Whether a conv goes by ``_row_tap_conv``: 2-D, stride 1, group 1, float32, more than one
    kernel row, and few outputs for its inputs (M <= 32 and M <= C / 2: DenseNet's 128-to-32
    3x3s). Measured one conv at a time, caches flushed, against what conv took before (im2col,
    or Winograd from 20x20): 1.3-2x faster at such shapes on 7..28-wide maps (DenseNet's 7x7
    0.57 of the time, 14x14 0.68, 28x28 0.79; 56x56 within the noise), and slower from
    M = 64 where Winograd takes the conv (up to 1.35x at 256 to 96 channels on 28x28). In
    the model, with its inputs still in cache, DenseNet runs 3-4% faster on the host and the
    device (on the device, its weights in device memory are compared with the kept copy on
    every call, see ``prepared``)."""
    m, c = w.shape[:2]
    return (group == 1 and x.ndim == 4 and x.dtype == np.float32 and w.dtype == np.float32
            and g.kernel[0] > 1 and g.strides == (1, 1) and m <= 32 and 2 * m <= c)


def _kernel_rows(w: np.ndarray) -> np.ndarray:
    """(M, C, kh, kw) weights as (kh * M, C * kw): kernel row t's (M, C * kw) matrix t-th."""
    m, c, kh, kw = w.shape
    return np.ascontiguousarray(w.transpose(2, 0, 1, 3)).reshape(kh * m, c * kw)


def _row_tap_conv(x: np.ndarray, w: np.ndarray, g: Geometry,
                  dst: np.ndarray | None) -> np.ndarray:
    """The 2-D stride-1 conv without bias, im2col along the kernel's columns and kn2row along
    its rows: one matmul of every kernel row's weights (kh * M, C * kw) by ``_shifts``' kw
    shifted copies of the input (C * kw, the rows any kernel row reads * ow), then kernel row
    t's product read t * dilation rows down and summed into the output, kh - 1 adds. The
    matrix built is kw copies of the input where im2col's is kh * kw, and the adds run over
    M channels: with few outputs for many inputs (C = 4M) the copies im2col makes cost more
    than its matmul, and this one matmul has the better shape for BLAS (kh * M rows, not M)."""
    n, m = x.shape[0], w.shape[0]
    shifted = _shifts(x, g)   # (N, C, kw, rows, ow)
    spread = math.prod(shifted.shape[3:])
    z = np.matmul(prepared(w, "kernel rows", _kernel_rows), shifted.reshape(n, -1, spread))
    z = z.reshape(n, g.kernel[0], m, spread)
    p, step = math.prod(g.out), g.dilations[0] * g.out[1]
    y = np.empty((n, m, *g.out), z.dtype) if dst is None else dst
    flat = y.reshape(n, m, p)
    np.add(z[:, 0, :, :p], z[:, 1, :, step:step + p], out=flat)
    for t in range(2, g.kernel[0]):
        np.add(flat, z[:, t, :, t * step:t * step + p], out=flat)
    return y


def _transpose_pads(in_shape: Sequence[int], full: Sequence[int], extra: Sequence[int],
                    strides: Sequence[int], auto_pad: str, output_shape: Sequence[int] | None,
                    pads: Sequence[int] | None) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """What ConvTranspose crops off each end of its full scatter (negative: a zero margin)."""
    nd = len(in_shape)
    if output_shape or auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        # Old exporters give output_shape with the N and C dims; only the spatial tail counts.
        wanted = output_shape[-nd:] if output_shape else [i * s for i, s in zip(in_shape, strides)]
        total = [f + e - o for f, e, o in zip(full, extra, wanted)]
        return _split_pads(total, auto_pad == "SAME_UPPER")
    pads = _per_axis(None if auto_pad == "VALID" else pads, 2 * nd, 0)
    return pads[:nd], pads[nd:]


@kernel("ConvTranspose")
def conv_transpose(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None, *,
                   auto_pad: str = "NOTSET", dilations: list[int] | None = None, group: int = 1,
                   kernel_shape: list[int] | None = None, output_padding: list[int] | None = None,
                   output_shape: list[int] | None = None, pads: list[int] | None = None,
                   strides: list[int] | None = None) -> tuple[np.ndarray]:
    n, c, *in_shape = x.shape
    m, nd = w.shape[1] * group, len(in_shape)
    check_kernel_shape(kernel_shape, w.shape)
    check_one_per((m,), "filter", bias=b)
    g = Geometry(tuple(w.shape[2:]), _per_axis(strides, nd, 1), _per_axis(dilations, nd, 1),
                  (0,) * nd, (0,) * nd, tuple(in_shape))
    extra = _per_axis(output_padding, nd, 0)
    check_output_padding(extra, g.strides, g.dilations)
    full = [(i - 1) * s + _extent(k, d)
            for i, s, k, d in zip(in_shape, g.strides, g.kernel, g.dilations)]
    begin, end = _transpose_pads(in_shape, full, extra, g.strides, auto_pad, output_shape, pads)
    out = [f + e - pb - pe for f, e, pb, pe in zip(full, extra, begin, end)]
    check_transpose_output(out, in_shape, [*begin, *end])

    # col2im: each input pixel's (M/G * kernel) column, scattered onto the output one kernel
    # offset at a time through a writeable window view. The buffer spans both the scatter
    # [0, full) and the output [begin, begin + out), which output_padding (or SAME with a
    # stride past the kernel) extends with zero margins.
    w_t = w.reshape(group, c // group, -1).transpose(0, 2, 1)
    cols = np.matmul(w_t, x.reshape(n, group, c // group, -1)).reshape(n, m, *g.kernel, *in_shape)
    lo = [min(0, pb) for pb in begin]
    hi = [max(f, pb + o) for f, pb, o in zip(full, begin, out)]
    buf = np.zeros((n, m, *(h - l for h, l in zip(hi, lo))), x.dtype)
    win = _windows(buf[_spatial([-l for l in lo], full)], g, writeable=True)
    for k in np.ndindex(*g.kernel):
        win[:, :, *k] += cols[:, :, *k]
    y = np.ascontiguousarray(buf[_spatial([pb - l for pb, l in zip(begin, lo)], out)])
    if b is not None:
        _add_bias(y, b)
    return (y,)


@kernel("Col2Im")
def col2im(x: np.ndarray, image_shape: np.ndarray, block_shape: np.ndarray, *,
           dilations: list[int] | None = None, pads: list[int] | None = None,
           strides: list[int] | None = None) -> tuple[np.ndarray]:
    """im2col's inverse: the (N, C * kernel, blocks) columns summed back onto the (padded)
    image, one kernel offset at a time through a writeable window view, then cropped."""
    image, block = [int(d) for d in image_shape], [int(d) for d in block_shape]
    g = _geometry(image, block, strides, dilations, pads)
    k, blocks = math.prod(g.kernel), math.prod(g.out)
    if x.ndim != 3 or x.shape[1] % k or x.shape[2] != blocks:
        raise ValueError(f"input {list(x.shape)} is not [N, C * {k}, {blocks}]: blocks of "
                         f"{block} over image_shape {image} number {blocks}")
    n = x.shape[0]
    cols = x.reshape(n, -1, *g.kernel, *g.out)
    padded = [b + i + e for b, i, e in zip(g.begin, image, g.end)]
    buf = np.zeros((n, cols.shape[1], *padded), x.dtype)
    win = _windows(buf, g, writeable=True)
    for k in np.ndindex(*g.kernel):
        win[:, :, *k] += cols[:, :, *k]
    return (np.ascontiguousarray(buf[_spatial(g.begin, image)]),)


def _tap_outputs(n: int, k: int, d: int, s: int, b: int, o: int) -> list[tuple[int, int, int]]:
    """Per kernel tap j of one axis: (j, lo, hi), the outputs [lo, hi) whose tap j lies in the
    input (not in the padding) of length ``n``; taps that no output reads in the input left out."""
    taps = []
    # only taps from first to last can land in the input for some output: a window of 2^31
    # taps ("same" padding of a huge kernel_shape) is a loop over the input's length, not k
    first, last = max(0, -((b - (o - 1) * s) // -d)), min(k - 1, (n - 1 + b) // d)
    for j in range(first, last + 1):
        offset = j * d - b  # output o reads input o * s + offset
        lo = max(0, -(offset // s)) if offset < 0 else 0
        hi = min(o, (n - 1 - offset) // s + 1) if n - 1 - offset >= 0 else 0
        if lo < hi:
            taps.append((j, lo, hi))
    return taps


def _fold_axis(ufunc: np.ufunc, acc: np.ndarray, axis: int, g: Geometry, i: int,
               identity: object, into: np.ndarray | None) -> np.ndarray:
    """``acc`` with spatial axis ``i`` (array axis ``axis``) folded by ``ufunc`` over each window
    of ``g``: each tap is one strided slice of the unpadded input, folded into the outputs
    whose window it reaches, so the padding is never materialised (it holds ``identity``)."""
    n, k, d, s, b, o = acc.shape[axis], g.kernel[i], g.dilations[i], g.strides[i], g.begin[i], \
        g.out[i]

    def tap(j: int, lo: int, hi: int) -> np.ndarray:
        index = [slice(None)] * acc.ndim
        start = lo * s + j * d - b
        index[axis] = slice(start, start + (hi - lo - 1) * s + 1 if hi > lo else start, s)
        return acc[tuple(index)]

    def outputs(a: np.ndarray, lo: int, hi: int) -> np.ndarray:
        if (lo, hi) == (0, o):
            return a
        index = [slice(None)] * a.ndim
        index[axis] = slice(lo, hi)
        return a[tuple(index)]

    taps = _tap_outputs(n, k, d, s, b, o)
    if len(taps) >= 2 and acc.flags.c_contiguous and n == s * o and \
            (axis == acc.ndim - 1 or s == 1):
        return _fold_flat(ufunc, acc, axis, taps, d, s, b, o, identity, into)
    whole = [t for t in taps if t[1:] == (0, o)]
    rest = [t for t in taps if t[1:] != (0, o)]
    shape = (*acc.shape[:axis], o, *acc.shape[axis + 1:])
    if len(whole) >= 2:
        folded = ufunc(tap(*whole[0]), tap(*whole[1]), out=into)
        pending = whole[2:] + rest
    else:
        folded = np.empty(shape, acc.dtype) if into is None else into
        pending = rest[1:] if whole and rest else rest
        if whole and rest:  # the first pass folds two taps where both reach, copies the border
            (j, _, _), (p, lo, hi) = whole[0], rest[0]
            ufunc(tap(j, lo, hi), tap(p, lo, hi), out=outputs(folded, lo, hi))
            np.copyto(outputs(folded, 0, lo), tap(j, 0, lo))
            np.copyto(outputs(folded, hi, o), tap(j, hi, o))
        elif whole:
            np.copyto(folded, tap(*whole[0]))
        else:
            folded.fill(identity)
    for j, lo, hi in pending:
        part = outputs(folded, lo, hi)
        ufunc(part, tap(j, lo, hi), out=part)
    return folded


def _fold_flat(ufunc: np.ufunc, acc: np.ndarray, axis: int, taps: list[tuple[int, int, int]],
               d: int, s: int, b: int, o: int, identity: object,
               into: np.ndarray | None) -> np.ndarray:
    """Axis ``axis`` of contiguous ``acc`` folded over the array laid end to end: the innermost
    axis at any stride, an outer one at stride 1 (its elements then blocks of the inner axes).
    Where each row of o outputs reads a row of s * o inputs, flat output i reads flat input
    s * i + offset for a tap wherever it lies: a tap is one pass over every row at once, where
    numpy would dispatch once per row (a 7..56-wide map's rows, or the channels of a "same"
    pool's outer axis: three times the time). A tap that reaches past its row's end reads the
    neighbouring row there: those border outputs are folded again on their own.

    A stride-2 outer axis is no such fold: its strided taps read whole rows, which costs less
    than passes over every input row and a copy keeping every other output (measured model
    by model: 1-6% faster in SqueezeNet, ShuffleNet, Inception and ResNet-50)."""
    inner = math.prod(acc.shape[axis + 1:])   # s == 1 when inner > 1
    flat = acc.reshape(-1)
    folded = np.empty((*acc.shape[:axis], o, *acc.shape[axis + 1:]), acc.dtype) \
        if into is None else into
    out = folded.reshape(-1)

    def run(j: int) -> tuple[int, int]:  # the flat outputs whose tap j lies inside the array
        offset = (j * d - b) * inner
        return max(0, -(offset // s)), min(out.size, (flat.size - 1 - offset) // s + 1)

    def reads(j: int, lo: int, hi: int) -> np.ndarray:
        start = lo * s + (j * d - b) * inner
        return flat[start:start + (hi - lo - 1) * s + 1:s]

    (j0, _, _), (j1, _, _) = taps[0], taps[1]
    lo, hi = max(run(j0)[0], run(j1)[0]), min(run(j0)[1], run(j1)[1])
    ufunc(reads(j0, lo, hi), reads(j1, lo, hi), out=out[lo:hi])
    for j, _, _ in taps[2:]:
        jlo, jhi = max(lo, run(j)[0]), min(hi, run(j)[1])
        ufunc(out[jlo:jhi], reads(j, jlo, jhi), out=out[jlo:jhi])
    lead = (slice(None),) * axis
    inner_lo, inner_hi = max(t[1] for t in taps), min(t[2] for t in taps)
    border = range(o) if inner_lo >= inner_hi else [*range(inner_lo), *range(inner_hi, o)]
    for c in border:
        column = folded[(*lead, c)]
        sources = [acc[(*lead, c * s + j * d - b)] for j, lo, hi in taps if lo <= c < hi]
        if not sources:
            column.fill(identity)
        elif len(sources) == 1:
            np.copyto(column, sources[0])
        else:
            ufunc(sources[0], sources[1], out=column)
            for more in sources[2:]:
                ufunc(column, more, out=column)
    return folded


def _pool(ufunc: np.ufunc, x: np.ndarray, g: Geometry, identity: object,
          dst: np.ndarray | None = None) -> np.ndarray:
    """Each window of ``g`` over (N, C, *spatial) ``x`` folded with ``ufunc``, the padding read
    as ``identity`` (never built), into ``dst`` if given, else a fresh array. A window fold is
    separable, so a 3x3 one takes 2 + 2 passes, not 8 over every offset. The outer axes fold
    first: their taps are whole rows, and the fold along the inner axis then runs on data
    already cut by the outer strides (SqueezeNet's 111x111 MaxPool: a quarter less time than
    inner-first)."""
    if all(o == 1 for o in g.out) and not any(g.begin) and all(d == 1 for d in g.dilations):
        # One window, at the input's corner (a global pool by another name: ShuffleNet's 7x7
        # AveragePool of a 7x7 map): one reduction, not a pass per tap and axis.
        window = x[(Ellipsis, *(slice(0, k) for k in g.kernel))]
        return ufunc.reduce(window, axis=tuple(range(2, x.ndim)), keepdims=True, out=dst)
    acc, fresh = x, False  # fresh: acc is no view of the input
    last = len(g.kernel) - 1
    for i in range(len(g.kernel)):
        axis = 2 + i
        if g.kernel[i] == 1 and not g.begin[i] and (g.out[i] - 1) * g.strides[i] < acc.shape[axis]:
            index = [slice(None)] * acc.ndim
            index[axis] = slice(0, (g.out[i] - 1) * g.strides[i] + 1, g.strides[i])
            acc = acc[tuple(index)]  # a 1-tap window in the input: a strided view, no pass
            continue
        acc, fresh = _fold_axis(ufunc, acc, axis, g, i, identity, dst if i == last else None), True
    if dst is not None and acc is not dst:
        np.copyto(dst, acc)
        return dst
    return acc if fresh else acc.copy()


@functools.lru_cache(maxsize=256)
def _window_counts(in_shape: tuple[int, ...], g: Geometry, include_pad: bool,
                   dtype: np.dtype) -> np.ndarray | float:
    """Taps per window that an average divides by: those in the input (or in input + pads);
    one number when every window has as many. Cached: a model divides by the same counts on
    every run (the array is read-only, as it is shared)."""
    per_axis = []
    for n, k, s, d, b, e, o in zip(in_shape, *g):
        lo, hi = (-b, n + e) if include_pad else (0, n)
        start = np.arange(o) * s - b   # output x's taps: start + j * d for j in [0, k)
        # the taps within [lo, hi), counted without listing them (a kernel may be 2^31 long)
        first = np.maximum(0, -((start - lo) // d))
        last = np.minimum(k - 1, (hi - 1 - start) // d)
        per_axis.append(np.maximum(last - first + 1, 0))
    counts = functools.reduce(np.multiply.outer, per_axis).astype(dtype)
    if counts.size and (counts == counts.flat[0]).all():
        return float(counts.flat[0])  # one scalar divide: no broadcast over rows
    counts.flags.writeable = False
    return counts


@kernel("MaxPool", writes_out=True)
def max_pool(x: np.ndarray, *, kernel_shape: list[int], auto_pad: str = "NOTSET",
             ceil_mode: int = 0, dilations: list[int] | None = None, pads: list[int] | None = None,
             storage_order: int = 0, strides: list[int] | None = None,
             num_outputs: int = 1, out: Sequence[np.ndarray] | None = None
             ) -> tuple[np.ndarray, ...]:
    g = _geometry(x.shape[2:], kernel_shape, strides, dilations, pads, auto_pad, ceil_mode)
    lowest = dtype_limits(x.dtype)[0]
    y = _pool(np.maximum, x, g, lowest,
              fits(out[0] if out else None, (*x.shape[:2], *g.out), x.dtype, x))
    if num_outputs < 2:
        return (y,)
    return y, _argmax_indices(x.shape, _padded(x, g, lowest), g, storage_order)


def _argmax_indices(shape: Sequence[int], xp: np.ndarray, g: Geometry,
                    storage_order: int) -> np.ndarray:
    """MaxPool's Indices: where in x each window's first maximum lies, as a flat index over
    (N, C, *spatial) with the spatial dims row-major (storage_order 0) or column-major (1)."""
    n, c, *spatial = shape
    nd = len(spatial)
    win = _windows(xp, g)
    taps = np.moveaxis(win, range(2, 2 + nd), range(2 + nd, 2 + 2 * nd))
    best = np.unravel_index(taps.reshape(n, c, *g.out, math.prod(g.kernel)).argmax(axis=-1),
                            g.kernel)
    order = range(nd) if storage_order else reversed(range(nd))
    flat, stride = np.zeros((n, c, *g.out), np.int64), 1
    for i in order:  # the fastest-varying spatial axis first
        at = np.arange(g.out[i]).reshape([-1 if j == i else 1 for j in range(nd)])
        flat += (at * g.strides[i] + best[i] * g.dilations[i] - g.begin[i]) * stride
        stride *= spatial[i]
    plane = np.arange(n * c, dtype=np.int64).reshape(n, c, *(1,) * nd)
    return flat + plane * math.prod(spatial)


@kernel("AveragePool", writes_out=True)
def average_pool(x: np.ndarray, *, kernel_shape: list[int], auto_pad: str = "NOTSET",
                 ceil_mode: int = 0, count_include_pad: int = 0,
                 dilations: list[int] | None = None, pads: list[int] | None = None,
                 strides: list[int] | None = None,
                 out: Sequence[np.ndarray] | None = None) -> tuple[np.ndarray]:
    # AveragePool-1 has no count_include_pad: it excluded pads, which is the later default.
    g = _geometry(x.shape[2:], kernel_shape, strides, dilations, pads, auto_pad, ceil_mode)
    y = _pool(np.add, x, g, 0, fits(out[0] if out else None, (*x.shape[:2], *g.out), x.dtype, x))
    y /= _window_counts(tuple(x.shape[2:]), g, bool(count_include_pad), y.dtype)
    return (y,)


@kernel("GlobalAveragePool")
def global_average_pool(x: np.ndarray) -> tuple[np.ndarray]:
    return (x.mean(axis=tuple(range(2, x.ndim)), keepdims=True),)


@kernel("LpPool")
def lp_pool(x: np.ndarray, *, kernel_shape: list[int], auto_pad: str = "NOTSET",
            ceil_mode: int = 0, dilations: list[int] | None = None,
            pads: list[int] | None = None, strides: list[int] | None = None,
            p: int = 2) -> tuple[np.ndarray]:
    g = _geometry(x.shape[2:], kernel_shape, strides, dilations, pads, auto_pad, ceil_mode)
    y = _pool(np.add, np.abs(x) ** p, g, 0)
    return ((y ** _root(p)).astype(x.dtype),)


def _root(p: int) -> float:
    # p 0: the sum's infinite root, as onnxruntime takes it (Python's 1 / 0 raises)
    return np.inf if p == 0 else 1.0 / p


@kernel("GlobalLpPool")
def global_lp_pool(x: np.ndarray, *, p: int = 2) -> tuple[np.ndarray]:
    s = (np.abs(x) ** p).sum(axis=tuple(range(2, x.ndim)), keepdims=True)
    return ((s ** _root(p)).astype(x.dtype),)


@kernel("LpNormalization")
def lp_normalization(x: np.ndarray, *, axis: int = -1, p: int = 2) -> tuple[np.ndarray]:
    if p not in (1, 2):
        raise ValueError(f"p {p} is not 1 or 2")
    norm = np.linalg.norm(x, ord=p, axis=checked_axis(axis, x.ndim), keepdims=True)
    return ((x / np.where(norm == 0, 1, norm)).astype(x.dtype),)


@kernel("MeanVarianceNormalization")
def mean_variance_normalization(x: np.ndarray, *,
                                axes: list[int] | None = None) -> tuple[np.ndarray]:
    ax = tuple(axes if axes is not None else (0, 2, 3))
    mean = x.mean(axis=ax, keepdims=True)
    std = np.sqrt(((x - mean) ** 2).mean(axis=ax, keepdims=True))
    return ((x - mean) / (std + x.dtype.type(1e-9))).astype(x.dtype),


@kernel("GlobalMaxPool")
def global_max_pool(x: np.ndarray) -> tuple[np.ndarray]:
    return (x.max(axis=tuple(range(2, x.ndim)), keepdims=True),)


_BN_FOLD_BOUND = 256


def _batch_norm_coefficients(params: tuple[np.ndarray, ...], epsilon: float) -> np.ndarray:
    """(a, c) with a = scale / sqrt(var + epsilon) and c = b - mean * a, for y = x * a + c: two
    passes over x instead of three. Its cancellation error, eps32 * |mean * a|, stays under
    256 * eps32 = 1.5e-5 of |scale|, the normalised output's own scale. For a mean far outside
    the spread, (a, mean, b) instead, for y = (x - mean) * a + b."""
    scale, b, mean, var = params
    std = np.sqrt(var + epsilon)
    a = scale / std
    if np.all(np.abs(mean) <= _BN_FOLD_BOUND * std):
        return np.stack([a, b - mean * a])
    return np.stack([a, mean, b])


def _batch_norm(x: np.ndarray, scale: np.ndarray, b: np.ndarray, mean: np.ndarray, var: np.ndarray,
                epsilon: float, shape: Sequence[int],
                out: Sequence[np.ndarray] | None) -> tuple[np.ndarray]:
    per_channel = shape[0] == -1   # else one per element of (C, *spatial): spatial=0
    check_one_per(x.shape[1:2] if per_channel else tuple(shape),
             "channel" if per_channel else "element of x's [C, *spatial]",
             scale=scale, B=b, mean=mean, var=var)
    # Derived once (GE folds them at build); from device memory, which may change under the
    # kernel, again whenever the parameters' bytes differ from the last call's.
    coefficients = prepared((scale, b, mean, var), f"batch norm, epsilon {epsilon!r}",
                            functools.partial(_batch_norm_coefficients, epsilon=epsilon))
    a = coefficients[0].reshape(shape)
    # Only the first pass reads x, so out may be x itself; b and mean are read after it.
    dst = fits(out[0] if out else None, x.shape, np.result_type(x, a), b, mean)
    with row_by_row(repeated_run(x, a)):
        if len(coefficients) == 2:
            y = np.multiply(x, a, out=dst)
            y += coefficients[1].reshape(shape)
            return (y,)
        y = np.subtract(x, coefficients[1].reshape(shape), out=dst)
        y *= a
        y += coefficients[2].reshape(shape)
        return (y,)


@kernel("BatchNormalization", writes_out=True)
def batch_normalization(x: np.ndarray, scale: np.ndarray, b: np.ndarray, mean: np.ndarray,
                        var: np.ndarray, *, epsilon: float = 1e-5, momentum: float = 0.9,
                        spatial: int = 1, is_test: int = 0,
                        out: Sequence[np.ndarray] | None = None) -> tuple[np.ndarray]:
    # Versions 1-13. momentum and is_test only concern training statistics;
    # like onnxruntime, an inference engine normalises with the given mean/var whatever is_test
    # says. spatial=0 (versions 1-7): one parameter per element of (C, D1, ..., Dn).
    shape = _channel_shape(x) if spatial else x.shape[1:]
    return _batch_norm(x, scale, b, mean, var, epsilon, shape, out)


@kernel("BatchNormalization", since=14, writes_out=True)
def batch_normalization_14(x: np.ndarray, scale: np.ndarray, b: np.ndarray, mean: np.ndarray,
                           var: np.ndarray, *, epsilon: float = 1e-5, momentum: float = 0.9,
                           training_mode: int = 0,
                           out: Sequence[np.ndarray] | None = None) -> tuple[np.ndarray]:
    if training_mode:
        return _batch_norm_training(x, scale, b, mean, var, epsilon, momentum)
    return _batch_norm(x, scale, b, mean, var, epsilon, _channel_shape(x), out)


def _batch_norm_training(x: np.ndarray, scale: np.ndarray, b: np.ndarray, mean: np.ndarray,
                         var: np.ndarray, epsilon: float,
                         momentum: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Y normalised with the batch's own statistics, and the running mean and variance moved
    toward them by (1 - momentum)."""
    axes = (0, *range(2, x.ndim))
    batch_mean, batch_var = x.mean(axis=axes), x.var(axis=axes)
    y = _batch_norm(x, scale, b, batch_mean, batch_var, epsilon, _channel_shape(x), None)[0]
    running_mean = mean * momentum + batch_mean * (1 - momentum)
    running_var = var * momentum + batch_var * (1 - momentum)
    return y, running_mean.astype(mean.dtype), running_var.astype(var.dtype)


@kernel("InstanceNormalization")
def instance_normalization(x: np.ndarray, scale: np.ndarray, b: np.ndarray, *,
                           epsilon: float = 1e-5) -> tuple[np.ndarray]:
    if x.ndim < 2 or scale.shape != x.shape[1:2] or b.shape != x.shape[1:2]:
        raise ValueError(f"scale {list(scale.shape)} and B {list(b.shape)} are not one per "
                         f"channel of x {list(x.shape)}")
    axes = tuple(range(2, x.ndim))
    y = x - x.mean(axis=axes, keepdims=True)
    var = np.square(y).mean(axis=axes, keepdims=True)
    y *= scale.reshape(_channel_shape(x)) / np.sqrt(var + epsilon)
    y += b.reshape(_channel_shape(x))
    return (y,)


@kernel("LRN")
def lrn(x: np.ndarray, *, size: int, alpha: float = 1e-4, beta: float = 0.75,
        bias: float = 1.0) -> tuple[np.ndarray]:
    # The sum of squares over channels [c - (size-1)//2, c + ceil((size-1)/2)] is a sum-pool
    # along the channel axis: lay channels out as a spatial axis and reuse _pool.
    if size < 1:
        raise ValueError(f"size {size} is not positive")
    n, c = x.shape[:2]
    squares = np.square(x).reshape(n, 1, c, math.prod(x.shape[2:]))
    # A window reaching past every channel sums no more than one reaching c - 1 either way:
    # clipped so, a size of 2^31 is a pool of 2c - 1 taps, not a loop over 2^31 of them.
    before = min((size - 1) // 2, c - 1)
    after = min(size - 1 - (size - 1) // 2, c - 1)
    g = _geometry(squares.shape[2:], (before + after + 1, 1), pads=(before, 0, after, 0))
    total = _pool(np.add, squares, g, 0).reshape(x.shape)
    return (x / (bias + (alpha / size) * total) ** beta,)


def _dropout_inference(data: np.ndarray, mask_dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    return data.copy(), np.ones(data.shape, mask_dtype)


@kernel("Dropout")
def dropout(data: np.ndarray, *, ratio: float = 0.5,
            is_test: int = 0) -> tuple[np.ndarray, np.ndarray]:
    # Versions 1-9, whose mask has the data's type. Inference is the identity whatever is_test
    # says (is_test=0, the default, asked for training): an inference engine drops nothing.
    return _dropout_inference(data, data.dtype)


@kernel("Dropout", since=10)
def dropout_10(data: np.ndarray, *, ratio: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    return _dropout_inference(data, np.dtype(bool))


@kernel("Dropout", since=12)
def dropout_12(data: np.ndarray, ratio: np.ndarray | None = None,
               training_mode: np.ndarray | None = None, *,
               seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    p = 0.5 if ratio is None else float(ratio)
    if training_mode is None or not training_mode or p == 0:
        return _dropout_inference(data, np.dtype(bool))
    # The spec lets an unseeded node draw any seed; a fixed default keeps runs replayable.
    mask = seeded(seed).random(data.shape) >= p
    return data * mask / data.dtype.type(1 - p), mask
