"""Image kernels: resampling (Resize, Upsample, GridSample, AffineGrid, RoiAlign), block moves
(SpaceToDepth, DepthToSpace, CenterCropPad, MaxUnpool) and NonMaxSuppression (ONNX default
domain).

Resampling is separable: along each resized axis every output position reads n neighbouring
input positions, weighted by an interpolation kernel of its distance to them, so one axis is one
``np.take`` of (out, n) clamped indices and one weighted sum. Values are computed in float64
and rounded back to x's dtype once (integers rounded and saturated), as the spec's reference
does.
"""
from __future__ import annotations

import itertools
import math
from typing import Callable, Sequence

import numpy as np

from npu_emu.op_impl.axis import checked_axis, outside
from npu_emu.op_impl.elementwise import one_output

# -- Resize ---------------------------------------------------------------------------------------


def _source_coords(mode: str, out: int, size: int, scale: float,
                   roi: tuple[float, float]) -> np.ndarray:
    """Where each output position along one axis samples the input (coordinate_transformation
    _mode), in input pixels."""
    y = np.arange(out, dtype=np.float64)
    length = scale * size
    if mode == "half_pixel":
        return (y + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return (y + 0.5) / scale - 0.5 if length > 1 else np.full(out, -0.5)
    if mode == "half_pixel_symmetric":  # the ROI's centre maps to the output's centre
        offset = size / 2 * (1 - out / length) if length else 0.0   # no outputs to place
        return offset + (y + 0.5) / scale - 0.5
    if mode == "align_corners":
        return y * (size - 1) / (length - 1) if length != 1 else np.zeros(out)
    if mode == "asymmetric":
        return y / scale
    if mode == "tf_half_pixel_for_nn":
        return (y + 0.5) / scale
    if mode == "tf_crop_and_resize":
        start, end = roi
        x = y * (end - start) * (size - 1) / (length - 1) if length != 1 \
            else np.full(out, (end - start) * (size - 1) / 2)
        return x + start * (size - 1)
    raise ValueError(f"unknown coordinate_transformation_mode {mode!r}")


def _nearest(x: np.ndarray, mode: str) -> np.ndarray:
    """The input position nearest to x by nearest_mode (ties as the mode says)."""
    floor = np.floor(x)
    frac = x - floor
    if mode == "round_prefer_floor":
        up = frac > 0.5
    elif mode == "round_prefer_ceil":
        up = frac >= 0.5
    elif mode == "floor":
        up = np.zeros_like(frac, bool)
    elif mode == "ceil":
        up = frac > 0
    else:
        raise ValueError(f"unknown nearest_mode {mode!r}")
    return (floor + up).astype(np.int64)


def _cubic(a: float) -> Callable[[np.ndarray], np.ndarray]:
    """Keys' cubic convolution kernel with parameter a, of |distance|."""

    def weigh(d: np.ndarray) -> np.ndarray:
        d = np.abs(d)
        near = ((a + 2) * d - (a + 3)) * d * d + 1
        far = ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
        return np.where(d <= 1, near, np.where(d < 2, far, 0.0))

    return weigh


def _linear(d: np.ndarray) -> np.ndarray:
    return np.clip(1 - np.abs(d), 0, 1)


def _taps(x: np.ndarray, weigh: Callable[[np.ndarray], np.ndarray], support: int,
          stretch: float) -> tuple[np.ndarray, np.ndarray]:
    """(indices, weights), each (out, n): the n input positions nearest each x (ties toward
    the smaller) and their normalised weights. ``stretch`` < 1 widens the kernel to average
    over a downscaled pixel's footprint (antialiasing)."""
    n = 2 * math.ceil(support / stretch)
    first = np.ceil(x).astype(np.int64) - n // 2
    idx = first[:, None] + np.arange(n)
    w = weigh((idx - x[:, None]) * stretch)
    return idx, w / w.sum(axis=1, keepdims=True)


def _resize_axis(data: np.ndarray, axis: int, out: int, scale: float, roi: tuple[float, float],
                 attrs: dict) -> np.ndarray:
    size = data.shape[axis]
    mode = attrs["coordinate_transformation_mode"]
    x = _source_coords(mode, out, size, scale, roi)
    if attrs["mode"] == "nearest":
        picked = np.take(data, np.clip(_nearest(x, attrs["nearest_mode"]), 0, size - 1), axis)
    else:
        weigh = _linear if attrs["mode"] == "linear" else _cubic(attrs["cubic_coeff_a"])
        support = 1 if attrs["mode"] == "linear" else 2
        stretch = min(scale, 1.0) if attrs["antialias"] else 1.0
        idx, w = _taps(x, weigh, support, stretch)
        if attrs["exclude_outside"]:
            w = np.where((idx < 0) | (idx >= size), 0.0, w)
            w /= np.where(w.sum(axis=1, keepdims=True) == 0, 1, w.sum(axis=1, keepdims=True))
        taps = np.take(data, np.clip(idx, 0, size - 1), axis)
        picked = (taps * w.reshape(w.shape + (1,) * (data.ndim - axis - 1))).sum(axis=axis + 1)
    if mode == "tf_crop_and_resize":
        outside = ((x < 0) | (x > size - 1)).reshape((-1,) + (1,) * (data.ndim - axis - 1))
        picked = np.where(outside, attrs["extrapolation_value"], picked)
    return picked


def _axes(axes: Sequence[int] | None, rank: int) -> list[int]:
    """Resize's axes, counted from the front: every axis when none are given."""
    return list(range(rank)) if axes is None else [checked_axis(a, rank) for a in axes]


def resize_plan(shape: Sequence[int], scales: Sequence[float] | None,
                sizes: Sequence[int] | None, axes: Sequence[int] | None,
                policy: str = "stretch") -> tuple[list[int], list[float]]:
    """(output shape, scale per axis) of a Resize: sizes given are kept (or, with a keep-aspect
    policy, one common scale, rounded half up), scales given give floor(size * scale)."""
    rank = len(shape)
    axes = _axes(axes, rank)
    for name, given in (("sizes", sizes), ("scales", scales)):
        if given is not None and len(given) != len(axes):
            raise ValueError(f"{name} has {len(given)} values for {len(axes)} axes")
    out, scale = list(shape), [1.0] * rank
    if scales is not None and not all(math.isfinite(s) and s > 0 for s in scales):
        raise ValueError(f"scales {list(scales)} are not all finite and above 0")
    if sizes is not None:
        for size, a in zip(sizes, axes):
            if size < 1 or shape[a] == 0:   # no scale above 0 makes either
                raise ValueError(f"sizes {list(sizes)} cannot resize axis {a} of {shape[a]} "
                                 f"to {size}")
        ratios = [sizes[i] / shape[a] for i, a in enumerate(axes)]
        if policy != "stretch":
            common = min(ratios) if policy == "not_larger" else max(ratios)
            ratios = [common] * len(axes)
            sizes = [int(common * shape[a] + 0.5) for a in axes]
        for i, a in enumerate(axes):
            out[a], scale[a] = int(sizes[i]), ratios[i]
    elif scales is not None:
        for i, a in enumerate(axes):
            out[a], scale[a] = int(math.floor(shape[a] * scales[i])), float(scales[i])
    else:
        raise ValueError("Resize needs scales or sizes")
    return out, scale


def _saturate(y: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        y = np.clip(np.rint(y), info.min, info.max)
    return y.astype(dtype)


def _resize(x: np.ndarray, scales: np.ndarray | None, sizes: np.ndarray | None,
            roi: np.ndarray | None, axes: Sequence[int] | None, attrs: dict) -> np.ndarray:
    scales = None if scales is None or scales.size == 0 else [float(s) for s in scales]
    sizes = None if sizes is None or sizes.size == 0 else [int(s) for s in sizes]
    out, scale = resize_plan(x.shape, scales, sizes, axes, attrs["keep_aspect_ratio_policy"])
    rank = x.ndim
    axes = _axes(axes, rank)
    roi_of = {a: (0.0, 1.0) for a in range(rank)}
    if roi is not None and roi.size:
        for i, a in enumerate(axes):
            roi_of[a] = (float(roi[i]), float(roi[i + len(axes)]))
    y = x.astype(np.float64)
    for a in axes:
        if out[a] != x.shape[a] or scale[a] != 1 or roi_of[a] != (0.0, 1.0):
            y = _resize_axis(y, a, out[a], scale[a], roi_of[a], attrs)
    return _saturate(y, x.dtype)


@one_output("Resize", since=11)
def resize(x: np.ndarray, roi: np.ndarray | None = None, scales: np.ndarray | None = None,
           sizes: np.ndarray | None = None, *, antialias: int = 0,
           axes: Sequence[int] | None = None,
           coordinate_transformation_mode: str = "half_pixel", cubic_coeff_a: float = -0.75,
           exclude_outside: int = 0, extrapolation_value: float = 0.0,
           keep_aspect_ratio_policy: str = "stretch", mode: str = "nearest",
           nearest_mode: str = "round_prefer_floor") -> np.ndarray:
    attrs = dict(antialias=antialias, coordinate_transformation_mode=coordinate_transformation_mode,
                 cubic_coeff_a=cubic_coeff_a, exclude_outside=exclude_outside,
                 extrapolation_value=extrapolation_value, mode=mode,
                 keep_aspect_ratio_policy=keep_aspect_ratio_policy, nearest_mode=nearest_mode)
    return _resize(x, scales, sizes, roi, axes, attrs)


def _upsample_attrs(mode: str) -> dict:
    # Upsample and Resize-10 sample at y / scale and take the pixel at or below it.
    return dict(antialias=0, coordinate_transformation_mode="asymmetric", cubic_coeff_a=-0.75,
                exclude_outside=0, extrapolation_value=0.0, keep_aspect_ratio_policy="stretch",
                mode="linear" if mode in ("linear", "bilinear") else mode, nearest_mode="floor")


@one_output("Resize", since=10)
def resize_10(x: np.ndarray, scales: np.ndarray, *, mode: str = "nearest") -> np.ndarray:
    return _resize(x, scales, None, None, None, _upsample_attrs(mode))


@one_output("Upsample", since=7)
def upsample_7(x: np.ndarray, *, scales: Sequence[float], mode: str = "nearest") -> np.ndarray:
    return _resize(x, np.asarray(scales), None, None, None, _upsample_attrs(mode))


@one_output("Upsample", since=9)
def upsample(x: np.ndarray, scales: np.ndarray, *, mode: str = "nearest") -> np.ndarray:
    return _resize(x, scales, None, None, None, _upsample_attrs(mode))


# -- GridSample, AffineGrid -----------------------------------------------------------------------


def _reflect(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """x folded back into [lo, hi] by reflecting at the borders, as often as it takes."""
    span = hi - lo
    below, above = lo - x, x - hi
    dist = np.where(x < lo, below, np.where(x > hi, above, 0.0))
    folds = np.floor(dist / span)
    rest = dist - folds * span
    even = folds % 2 == 0
    from_lo = np.where(even, lo + rest, hi - rest)
    from_hi = np.where(even, hi - rest, lo + rest)
    return np.where(x < lo, from_lo, np.where(x > hi, from_hi, x))


def _pixels(x: np.ndarray, coords: list[np.ndarray], padding_mode: str,
            bounds: list[tuple[float, float]]) -> np.ndarray:
    """x[n, :, coords...] for integer coords (N, *out) per spatial axis -> (N, C, *out), with
    out-of-range pixels read as padding_mode says: zeros, the border, or reflected."""
    spatial = x.shape[2:]
    inside = np.ones(coords[0].shape, bool)
    fixed = []
    for c, size, (lo, hi) in zip(coords, spatial, bounds):
        if padding_mode == "zeros":
            inside &= (c >= 0) & (c < size)
        elif padding_mode == "reflection":
            c = _reflect(c.astype(np.float64), lo, hi).astype(np.int64)
        fixed.append(np.clip(c, 0, size - 1))
    batch = np.arange(x.shape[0]).reshape((-1,) + (1,) * (coords[0].ndim - 1))
    values = np.moveaxis(x[(batch, slice(None), *fixed)], -1, 1)
    return np.where(inside[:, None], values, 0)


@one_output("GridSample", since=16)
def grid_sample(x: np.ndarray, grid: np.ndarray, *, align_corners: int = 0,
                mode: str = "linear", padding_mode: str = "zeros") -> np.ndarray:
    """Each grid point (N, *out, nd) holds normalised coordinates in [-1, 1], the last spatial
    axis first; Y[n, c, out] is x[n, c] interpolated there (opset 16's bilinear and bicubic
    are the linear and cubic modes of 20)."""
    mode = {"bilinear": "linear", "bicubic": "cubic"}.get(mode, mode)
    spatial = x.shape[2:]
    if grid.ndim != x.ndim or grid.shape[0] != x.shape[0] or grid.shape[-1] != len(spatial):
        raise ValueError(f"grid {list(grid.shape)} is not [N, *out, {len(spatial)}] for X "
                         f"{list(x.shape)}")
    if 0 in spatial:   # every point lies outside an image of no pixels
        if padding_mode != "zeros":
            raise ValueError(f"the image is empty ({'x'.join(map(str, spatial))}): "
                             f"{padding_mode} padding has no pixel to take")
        return np.zeros((*x.shape[:2], *grid.shape[1:-1]), x.dtype)
    # Pixel coordinates in the grid's precision (float32 at least), as onnxruntime and the
    # reference work them out: a nearest pick rounds half to even, and float64 moved a float32
    # grid's 0.8 of 6 voxels from the tie 4.5 to 4.50000003.
    g = grid.astype(np.promote_types(grid.dtype, np.float32))
    coords, bounds = [], []
    for i, size in enumerate(spatial):
        n = g[..., len(spatial) - 1 - i]
        if align_corners:
            coords.append(((n + 1) / 2 * (size - 1)).astype(np.float64))
            bounds.append((0.0, size - 1.0))
        else:
            coords.append((((n + 1) * size - 1) / 2).astype(np.float64))
            bounds.append((-0.5, size - 0.5))
    if mode == "nearest":
        coords = [np.rint(c) for c in coords]
    for i, (size, (lo, hi)) in enumerate(zip(spatial, bounds)):
        if padding_mode == "border":
            coords[i] = np.clip(coords[i], 0, size - 1)
        elif padding_mode == "reflection":
            coords[i] = _reflect(coords[i], lo, hi)
    if mode == "nearest":
        y = _pixels(x, [c.astype(np.int64) for c in coords], padding_mode, bounds)
        return y.astype(x.dtype)
    offsets = (0, 1) if mode == "linear" else (-1, 0, 1, 2)
    weigh = _linear if mode == "linear" else _cubic(-0.75)
    base = [np.floor(c) for c in coords]
    y = np.zeros((x.shape[0], x.shape[1], *grid.shape[1:-1]))
    for taps in itertools.product(offsets, repeat=len(spatial)):
        w = np.prod([weigh(c - (b + t)) for c, b, t in zip(coords, base, taps)], axis=0)
        at = [(b + t).astype(np.int64) for b, t in zip(base, taps)]
        y += w[:, None] * _pixels(x, at, padding_mode, bounds)
    return y.astype(x.dtype)


@one_output("AffineGrid")
def affine_grid(theta: np.ndarray, size: np.ndarray, *, align_corners: int = 0) -> np.ndarray:
    """The normalised sampling grid (N, *spatial, nd) that theta (N, nd, nd + 1) maps the
    output's pixel centres (or corners) to; coordinates last spatial axis first."""
    spatial = [int(s) for s in size[2:]]
    axes = [np.linspace(-1, 1, s) if align_corners else (np.arange(s) * 2 + 1) / s - 1
            for s in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")
    homogeneous = np.stack([*reversed(mesh), np.ones(spatial)], axis=-1)   # x, y, (z), 1
    grid = homogeneous.reshape(-1, len(spatial) + 1) @ np.swapaxes(theta, 1, 2)
    return grid.reshape(theta.shape[0], *spatial, len(spatial)).astype(theta.dtype)


# -- RoiAlign -------------------------------------------------------------------------------------


def _bilinear_axis(pos: np.ndarray, size: int) -> tuple[np.ndarray, ...]:
    """Per sample position along one axis: (low, high, weight of low, weight of high, valid).
    A sample more than a pixel outside the map counts 0; one past the last pixel reads it."""
    # a NaN position (a spatial_scale of inf) passes, as onnxruntime's test lets it: its
    # weights make the sample NaN; one far outside (a ROI at 1e30) is read as 0, not cast
    valid = ~((pos < -1.0) | (pos > size))
    pos = np.where(valid, np.maximum(pos, 0), 0)
    low = np.where(np.isnan(pos), 0, pos).astype(np.int64)
    last = low >= size - 1
    low = np.where(last, size - 1, low)
    high = np.where(last, size - 1, low + 1)
    frac = np.where(last, 0.0, pos - low)
    return low, high, 1 - frac, frac, valid


@one_output("RoiAlign", since=10)
def roi_align_10(x: np.ndarray, rois: np.ndarray, batch_indices: np.ndarray, *,
                 mode: str = "avg", output_height: int = 1, output_width: int = 1,
                 sampling_ratio: int = 0, spatial_scale: float = 1.0) -> np.ndarray:
    return roi_align(x, rois, batch_indices, coordinate_transformation_mode="output_half_pixel",
                     mode=mode, output_height=output_height, output_width=output_width,
                     sampling_ratio=sampling_ratio, spatial_scale=spatial_scale)


_ROI_SAMPLES = 1 << 24   # a 256-channel 7x7 ROI sampled 2x2 per bin is 50k


@one_output("RoiAlign", since=16)
def roi_align(x: np.ndarray, rois: np.ndarray, batch_indices: np.ndarray, *,
              coordinate_transformation_mode: str = "half_pixel", mode: str = "avg",
              output_height: int = 1, output_width: int = 1, sampling_ratio: int = 0,
              spatial_scale: float = 1.0) -> np.ndarray:
    """Each ROI (x1, y1, x2, y2) cut into output_height x output_width bins; a bin is the
    average (or max) of a grid of bilinear samples, sampling_ratio per side (0: as many as
    the bin is pixels wide). The sample grid differs per ROI, so ROIs go one at a time."""
    half = coordinate_transformation_mode == "half_pixel"
    if x.ndim != 4 or rois.ndim != 2 or rois.shape[1] != 4 \
            or batch_indices.shape != rois.shape[:1]:
        raise ValueError(f"X {list(x.shape)}, rois {list(rois.shape)} and batch_indices "
                         f"{list(batch_indices.shape)} are not [N, C, H, W], [num_rois, 4] and "
                         f"[num_rois]")
    if outside(batch_indices, 0, len(x)) is not None:
        raise ValueError(f"batch_indices {batch_indices.tolist()} are not within the batch of "
                         f"{len(x)}")
    if not np.isfinite(rois).all():   # a NaN corner has no pixel to sample (onnxruntime too)
        raise ValueError(f"ROI {int(np.argmin(np.isfinite(rois).all(axis=1)))} has a corner "
                         f"that is not finite")
    for name, bins in (("output_height", output_height), ("output_width", output_width)):
        if bins < 1:   # numpy's "negative dimensions are not allowed"
            raise ValueError(f"{name} {bins} is not positive")
    h, w = x.shape[2:]
    y = np.empty((len(rois), x.shape[1], output_height, output_width), x.dtype)
    for r, (roi, b) in enumerate(zip(rois.astype(np.float64), batch_indices)):
        start = roi[:2] * spatial_scale - (0.5 if half else 0.0)
        extent = roi[2:] * spatial_scale - (0.5 if half else 0.0) - start
        if not half:
            extent = np.maximum(extent, 1.0)  # malformed ROIs become 1x1
        bins = np.array([output_width, output_height])
        size = extent / bins
        grid = np.full(2, sampling_ratio) if sampling_ratio > 0 \
            else np.ceil(extent / bins).astype(np.int64)
        gx, gy = int(grid[0]), int(grid[1])
        samples_of_roi = x.shape[1] * output_height * output_width * gx * gy
        if samples_of_roi > _ROI_SAMPLES:   # each one a float64 held at once, four times over
            raise ValueError(f"ROI {r}'s sampling grid of {gx}x{gy} per bin makes "
                             f"{samples_of_roi:,} samples, more than the {_ROI_SAMPLES:,} this "
                             f"kernel holds at once (sampling_ratio {sampling_ratio})")
        xs = start[0] + (np.arange(output_width)[:, None] + (np.arange(gx) + 0.5) / gx) * size[0]
        ys = start[1] + (np.arange(output_height)[:, None] + (np.arange(gy) + 0.5) / gy) * size[1]
        xl, xh, xwl, xwh, xv = _bilinear_axis(xs.reshape(-1), w)
        yl, yh, ywl, ywh, yv = _bilinear_axis(ys.reshape(-1), h)
        plane = x[int(b)].astype(np.float64)
        ok = (yv[:, None] & xv[None, :])[None]
        terms = [plane[:, yi][:, :, xi] * (wy[:, None] * wx[None, :])[None]
                 for yi, wy in ((yl, ywl), (yh, ywh)) for xi, wx in ((xl, xwl), (xh, xwh))]
        shape = (x.shape[1], output_height, gy, output_width, gx)
        if mode == "avg":
            samples = np.where(ok, sum(terms), 0).reshape(shape)
            y[r] = samples.sum(axis=(2, 4)) / max(gx * gy, 1)
        else:
            samples = np.where(ok, np.maximum.reduce(terms), 0).reshape(shape)
            y[r] = samples.max(axis=(2, 4))
    return y


# -- block moves ----------------------------------------------------------------------------------


@one_output("SpaceToDepth")
def space_to_depth(x: np.ndarray, *, blocksize: int, mode: str = "DCR") -> np.ndarray:
    # Each b x b block of pixels becomes b*b channels: block row and column before the
    # channel (DCR), or after it (CRD).
    n, c, h, w = x.shape
    b = blocksize
    order = (0, 3, 5, 1, 2, 4) if mode == "DCR" else (0, 1, 3, 5, 2, 4)
    blocks = x.reshape(n, c, h // b, b, w // b, b).transpose(order)
    return blocks.reshape(n, c * b * b, h // b, w // b)


@one_output("DepthToSpace")
def depth_to_space(x: np.ndarray, *, blocksize: int, mode: str = "DCR") -> np.ndarray:
    # The inverse: channel groups become b x b blocks; DCR reads depth-column-row, CRD
    # column-row-depth.
    n, c, h, w = x.shape
    b = blocksize
    if mode == "DCR":
        blocks = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        blocks = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return blocks.reshape(n, c // (b * b), h * b, w * b)


@one_output("CenterCropPad")
def center_crop_pad(x: np.ndarray, shape: np.ndarray, *,
                    axes: Sequence[int] | None = None) -> np.ndarray:
    """x cropped or zero-padded to ``shape`` on ``axes``, centred (an odd difference puts
    the extra element at the end)."""
    axes = range(x.ndim) if axes is None else [checked_axis(a, x.ndim) for a in axes]
    out_shape = list(x.shape)
    src = [slice(None)] * x.ndim
    dst = [slice(None)] * x.ndim
    for a, want in zip(axes, (int(s) for s in shape)):
        have = x.shape[a]
        out_shape[a] = want
        lo = abs(have - want) // 2
        if want < have:
            src[a] = slice(lo, lo + want)
        elif want > have:
            dst[a] = slice(lo, lo + have)
    y = np.zeros(out_shape, x.dtype)
    y[tuple(dst)] = x[tuple(src)]
    return y


@one_output("MaxUnpool", since=9)
def max_unpool(x: np.ndarray, indices: np.ndarray, output_shape: np.ndarray | None = None, *,
               kernel_shape: Sequence[int], pads: Sequence[int] | None = None,
               strides: Sequence[int] | None = None) -> np.ndarray:
    """MaxPool's inverse: each value back where its Indices say, zeros elsewhere, in the
    shape the pool's input had (or output_shape, padded at the end)."""
    nd = len(kernel_shape)
    strides = strides or [1] * nd
    pads = pads or [0] * (2 * nd)
    inferred = [(i - 1) * s - pads[k] - pads[k + nd] + kernel_shape[k]
                for k, (i, s) in enumerate(zip(x.shape[2:], strides))]
    y = np.zeros(math.prod(x.shape[:2]) * math.prod(inferred), x.dtype)
    if indices.shape != x.shape:
        raise ValueError(f"I {list(indices.shape)} is not X's shape {list(x.shape)}")
    if outside(indices, 0, y.size) is not None:
        raise ValueError(f"an index of I lies outside the {y.size} elements of the unpooled "
                         f"{[*x.shape[:2], *inferred]}")
    y[indices.reshape(-1)] = x.reshape(-1)
    y = y.reshape(*x.shape[:2], *inferred)
    if output_shape is None:
        return y
    out_shape = [int(d) for d in output_shape]
    if len(out_shape) != y.ndim or any(o < d for o, d in zip(out_shape, y.shape)):
        raise ValueError(f"output_shape {out_shape} cannot hold the unpooled {list(y.shape)}")
    out = np.zeros(out_shape, x.dtype)
    out[tuple(slice(0, d) for d in y.shape)] = y
    return out


# -- NonMaxSuppression ----------------------------------------------------------------------------


def _corners(boxes: np.ndarray, center_point_box: int) -> np.ndarray:
    """Boxes as (y_min, x_min, y_max, x_max)."""
    if center_point_box:
        xc, yc, w, h = np.moveaxis(boxes, -1, 0)
        return np.stack([yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2], axis=-1)
    y1, x1, y2, x2 = np.moveaxis(boxes, -1, 0)
    return np.stack([np.minimum(y1, y2), np.minimum(x1, x2), np.maximum(y1, y2),
                     np.maximum(x1, x2)], axis=-1)


def _iou(corners: np.ndarray) -> np.ndarray:
    """Intersection over union of every pair of boxes (0 where they do not overlap)."""
    lo = np.maximum(corners[:, None, :2], corners[None, :, :2])
    hi = np.minimum(corners[:, None, 2:], corners[None, :, 2:])
    inter = np.prod(np.clip(hi - lo, 0, None), axis=-1)
    area = np.prod(corners[:, 2:] - corners[:, :2], axis=-1)
    union = area[:, None] + area[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((inter > 0) & (union > 0), inter / union, 0.0)


@one_output("NonMaxSuppression")
def non_max_suppression(boxes: np.ndarray, scores: np.ndarray,
                        max_output_boxes_per_class: np.ndarray | None = None,
                        iou_threshold: np.ndarray | None = None,
                        score_threshold: np.ndarray | None = None, *,
                        center_point_box: int = 0) -> np.ndarray:
    """Per batch and class, boxes by falling score (ties: lower index first), each kept unless
    it overlaps a kept one by more than iou_threshold; [batch, class, box] rows, int64."""
    limit = 0 if max_output_boxes_per_class is None or max_output_boxes_per_class.size == 0 \
        else max(int(max_output_boxes_per_class.reshape(-1)[0]), 0)
    iou_max = 0.0 if iou_threshold is None or iou_threshold.size == 0 \
        else float(iou_threshold.reshape(-1)[0])
    if not 0 <= iou_max <= 1:   # as onnxruntime refuses it (the spec's range)
        raise ValueError(f"iou_threshold {iou_max:g} is not within [0, 1]")
    floor = None if score_threshold is None or score_threshold.size == 0 \
        else float(score_threshold.reshape(-1)[0])
    if boxes.ndim != 3 or boxes.shape[2] != 4 or scores.ndim != 3 \
            or scores.shape[0] != boxes.shape[0] or scores.shape[2] != boxes.shape[1]:
        raise ValueError(f"boxes {list(boxes.shape)} and scores {list(scores.shape)} are not "
                         f"[batch, boxes, 4] and [batch, classes, boxes]")
    selected = []
    for b in range(boxes.shape[0]):
        overlap = _iou(_corners(boxes[b].astype(np.float64), center_point_box))
        for c in range(scores.shape[1]):
            s = scores[b, c]
            order = np.argsort(-s, kind="stable")
            if floor is not None:
                order = order[s[order] > floor]
            kept: list[int] = []
            alive = np.ones(len(order), bool)
            for i, box in enumerate(order):   # greedy: each choice depends on the last
                if len(kept) >= limit:
                    break
                if alive[i]:
                    kept.append(int(box))
                    alive &= overlap[box, order] <= iou_max
            selected += [(b, c, k) for k in kept]
    return np.array(selected, np.int64).reshape(-1, 3)
