"""Depthwise convolution: a Conv with as many groups as input and output channels, one small
kernel per channel (ShuffleNet's and MobileNet's 3x3 convs).

im2col does C tiny matmuls there over columns that cost more to build than to multiply (nine
copies of the input for a 3x3 kernel; ``nn._shifted_columns`` at stride 1). Here every kernel
tap is one *shift* of a flattened plane the size of the output, laid between zero margins (a
shift past either end reads zeros), the reads that wrap into the next row zeroed:

- with stride 1 and an output the size of the input ("same" padding), the plane is the input
  itself, and tap (ki, kj) reads it at one flat offset for every output;
- with stride s, the input splits into its s x s *phase planes* x[p::s, q::s], and a tap
  reads one of them at one offset, when each plane has exactly the output's size (Shuffle-
  Net's stride-2 convs of even maps).

With one plane, every tap is one strided view of it, and the taps are copied at once. Each
channel's taps stack into a (taps, P) matrix; one batched matmul, C of (1 x taps) @
(taps x P), reduces them straight into the output. ShuffleNet's depthwise convs, timed in
its run, took 0-20% less time than by im2col (the 28x28 stride-1 one no less: the columns'
9 copies of the input, not the calls, are the cost).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from npu_emu.op_impl.window_geometry import Geometry

# the columns of one band of channels at most (a map's taps, stacked): with the band's planes
# they stay in a core's L2 (2 MB on the machine measured) from their copy to the matmul.
# ShuffleNet's 136-channel 28x28 conv took 240 us in 1 MB bands, 430 in one 3.8 MB band
_BAND_BYTES = 1 << 20

# (phase, shift) of each kernel offset along one axis: it reads phase plane ``phase`` at
# output index + ``shift``
_AxisTaps = list[tuple[int, int]]


def _axis_taps(size: int, k: int, s: int, d: int, begin: int, out: int) -> _AxisTaps | None:
    """Where each of an axis's kernel offsets reads, or None where some phase plane it reads
    is not exactly ``out`` long (then a read past the plane's end is no padding)."""
    taps = []
    for kk in range(k):
        phase, shift = divmod(kk * d - begin, s)[::-1]
        if -(-(size - phase) // s) != out:
            return None
        taps.append((phase, shift))
    return taps


def depthwise_conv(x: np.ndarray, w: np.ndarray, g: Geometry, group: int,
                   dst: np.ndarray | None, shuffle: int = 1) -> np.ndarray | None:
    """The conv without bias, into ``dst`` if given; None where it is no depthwise conv this
    path takes (a kernel of one tap, a channel multiplier, a phase plane of another size).
    ``shuffle`` > 1: the conv of ``x``'s channels shuffled in that many groups (see
    ``_planes``)."""
    n, c = x.shape[:2]
    if not (group == c == w.shape[0] > 1 and w.shape[1] == 1 and math.prod(g.kernel) > 1):
        return None
    band = max(1, _BAND_BYTES // max(1, n * math.prod(g.kernel) * math.prod(g.out)
                                     * x.itemsize))
    plan = _plan(x.shape[2:], g)
    if plan is None:
        return None
    y = dst if dst is not None else np.empty((n, c, *g.out), np.result_type(x, w))
    # x as its shuffle's groups (one group unshuffled), and a band of whole shuffle rows:
    # channels i * g + j for a range of i and every j read that range of i in each group
    groups = x.reshape(n, shuffle, c // shuffle, *x.shape[2:])
    band = max(shuffle, band - band % shuffle)
    for c0 in range(0, c, band):  # the columns a band of channels at a time
        part = slice(c0, c0 + band)
        _taps_reduced(groups[:, :, c0 // shuffle:(c0 + band) // shuffle], w[part], g, plan,
                      y[:, part])
    return y


@dataclass(frozen=True)
class _Plan:
    """Where a depthwise conv of one input size and geometry reads its taps: what depends on
    the shapes only, worked out once (a model runs the same convs at every execution, and
    this was a quarter of a ShuffleNet depthwise conv's time)."""
    margin: int       # the zeros before and after each flattened phase plane
    planes: tuple[tuple[tuple[int, ...], tuple[slice, ...]], ...]   # phase -> its input slice
    reads: tuple[tuple[tuple[int, ...], int], ...]   # per tap: its phase plane and start
    steps: tuple[int, ...] | None   # one plane (stride 1): each kernel axis's flat step
    edges: tuple[tuple[slice | int, ...], ...]   # the wrapped reads, in the (kernel, out) grid


@functools.lru_cache(maxsize=256)
def _plan(spatial: tuple[int, ...], g: Geometry) -> _Plan | None:
    """The taps' reads, None where some phase plane is not exactly the output's size."""
    per_axis = [_axis_taps(*axis) for axis in zip(spatial, *g[:4], g.out)]
    if any(taps is None for taps in per_axis):
        return None
    out, nd = g.out, len(g.out)
    rows = [math.prod(out[a + 1:]) for a in range(nd)]  # flat stride of each output axis
    taps = [[axis[i] for axis, i in zip(per_axis, index)] for index in np.ndindex(*g.kernel)]
    offsets = [sum(r[1] * row for r, row in zip(tap, rows)) for tap in taps]
    margin = max(abs(o) for o in offsets)
    phases = tuple(dict.fromkeys(tuple(r[0] for r in tap) for tap in taps))
    planes = tuple((ph, (Ellipsis, *(slice(q, None, s) for q, s in zip(ph, g.strides))))
                   for ph in phases)
    reads = tuple((tuple(r[0] for r in tap), margin + offset)
                  for tap, offset in zip(taps, offsets))
    steps = None
    if len(phases) == 1:   # the taps are one strided view of the plane, from the first's start
        steps = tuple((a[1][1] - a[0][1] if len(a) > 1 else 0) * row
                      for a, row in zip(per_axis, rows))
    # along the inner axes a shift wraps into the next row: those reads are padding
    edges = []
    for axis in range(1, nd):
        for kk, (_, shift) in enumerate(per_axis[axis]):
            if shift:
                edge: list[slice | int] = [slice(None)] * (2 + 2 * nd)
                edge[2 + axis] = kk
                edge[2 + nd + axis] = slice(max(0, out[axis] - shift), None) if shift > 0 \
                    else slice(0, min(-shift, out[axis]))
                edges.append(tuple(edge))
    return _Plan(margin, planes, reads, steps, tuple(edges))


def _planes(groups: np.ndarray, plan: _Plan,
            out: tuple[int, ...]) -> dict[tuple[int, ...], np.ndarray]:
    """Each phase plane of ``groups`` (N, g, C/g, ...), flattened between zero margins (a
    shift off either end reads zeros), its channels shuffled (ShuffleNet's channel shuffle:
    channel i * g + j is group j's channel i; with one group, x's own order), read in that
    order by the one copy the planes cost anyway: the shuffle costs no pass of its own."""
    n, shuffle, per_group = groups.shape[:3]
    p, margin = math.prod(out), plan.margin
    planes: dict[tuple[int, ...], np.ndarray] = {}
    for phase, part in plan.planes:
        plane = planes[phase] = np.zeros((n, per_group * shuffle, margin + p + margin),
                                         groups.dtype)
        inside = plane[..., margin:margin + p]
        inside.reshape(n, per_group, shuffle, *out)[...] = groups[part].swapaxes(1, 2)
    return planes


def _taps_reduced(groups: np.ndarray, w: np.ndarray, g: Geometry, plan: _Plan,
                  y: np.ndarray) -> None:
    """The depthwise conv of ``groups``' channels, shuffled (see ``_planes``), into ``y``, its
    taps read as ``plan`` says."""
    n, c = y.shape[:2]
    out, taps = g.out, math.prod(g.kernel)
    p = math.prod(out)
    planes = _planes(groups, plan, out)
    cols = np.empty((n, c, *g.kernel, p), groups.dtype)
    if plan.steps is not None:  # (stride 1) one strided view of the plane: one copy
        (plane,) = planes.values()
        size = plane.itemsize
        # the view made on the plane's buffer (fresh, contiguous), which numpy checks the
        # strides against: as_strided's __array_interface__ round trip cost a tenth of a
        # 14x14 depthwise conv
        np.copyto(cols, np.ndarray(cols.shape, plane.dtype, plane, plan.reads[0][1] * size,
                                   (*plane.strides[:2], *(t * size for t in plan.steps), size)))
    else:
        flat = cols.reshape(n, c, taps, p)
        for k, (phase, start) in enumerate(plan.reads):
            flat[:, :, k] = planes[phase][..., start:start + p]
    grid = cols.reshape(n, c, *g.kernel, *out)
    for edge in plan.edges:
        grid[edge] = 0
    cols = cols.reshape(n, c, taps, p)
    if y.flags.c_contiguous:
        np.matmul(w.reshape(c, 1, taps), cols, out=y.reshape(n, c, 1, p))
    else:  # a band of a batch's channels
        y[...] = np.matmul(w.reshape(c, 1, taps), cols).reshape(y.shape)
