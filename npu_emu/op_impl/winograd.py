"""Winograd convolution F(m x m, 3 x 3) (Lavin & Gray), m = 2 or 4: a 3x3 stride-1 conv in
(m + 2)^2 multiplies per m x m output tile and channel pair where direct convolution takes 9 m^2,
a 2.25x saving at m = 2 and 4x at m = 4; the multiplies are (m + 2)^2 matmuls, one per
position of the transformed tile, each (M x C) @ (C x tiles).

Every step is a BLAS call or a long copy, never an elementwise pass per coefficient: tile
(i, j)'s input d[a, b] = xp[m i + a, m j + b] lies in phase plane (a % m, b % m) of the padded
input at (i + a // m, j + b // m), so with each plane flattened, d[a, b] for every tile is one
contiguous run (a row further on for a >= m, a column for b >= m); the (m + 2)^2 runs are
gathered and transformed as B^T d B by two small matmuls over all tiles (the transform is
separable: columns, then rows), and the products go back the same way through A^T p A. A tile
row is one column wider than the output (the run's overhang into the next row): that junk
column is multiplied and dropped. Tile rows go in bands whose working set stays cache-sized,
but long enough for U (37 MB at 512 channels) to be read from memory once per long matmul.

The transformed weights U = G g G^T, (m + 2)^2 / 9 of the weights' bytes, are derived in float64
once and kept from call to call (see ``prepared``). F(4x4)'s transforms have larger coefficients,
so its rounding error is about 20x F(2x2)'s (relative to the outputs' scale, about 1e-5 on
standard-normal data with 128 input channels, still 100x inside ONNX's 1e-3 tolerance).
"""
from __future__ import annotations

import functools

import numpy as np

from npu_emu.op_impl.prepared import prepared

# (B^T, G, A^T) of F(m x m, 3 x 3), interpolation points 0, +-1 (m = 2) and 0, +-1, +-2 (m = 4).
_MATRICES = {
    2: ([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]],
        [[1, 0, 0], [1 / 2, 1 / 2, 1 / 2], [1 / 2, -1 / 2, 1 / 2], [0, 0, 1]],
        [[1, 1, 1, 0], [0, 1, -1, -1]]),
    4: ([[4, 0, -5, 0, 1, 0], [0, -4, -4, 1, 1, 0], [0, 4, -4, -1, 1, 0],
         [0, -2, -1, 2, 1, 0], [0, 2, -1, -2, 1, 0], [0, 4, 0, -5, 0, 1]],
        [[1 / 4, 0, 0], [-1 / 6, -1 / 6, -1 / 6], [-1 / 6, 1 / 6, -1 / 6],
         [1 / 24, 1 / 12, 1 / 6], [1 / 24, -1 / 12, 1 / 6], [0, 0, 1]],
        [[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0], [0, 1, -1, 8, -8, 1]]),
}
_BAND = 1 << 19  # elements of one band's gathered tiles (2 MB of float32: the L2 cache's size)
_MIN_COLUMNS = 256  # tiles of a band at least: U, read once a band, must feed long matmuls


@functools.cache
def _transforms(m: int) -> tuple[np.ndarray, np.ndarray]:
    """B^T and A^T of F(m x m, 3 x 3) in float32 (small integers: exact)."""
    bt, _, at = _MATRICES[m]
    return np.array(bt, np.float32), np.array(at, np.float32)


def _weights(m: int, w: np.ndarray) -> np.ndarray:
    """U = G g G^T for every (output, input) channel pair: ((m + 2)^2, 1, M, C), computed in
    float64 (G's sixths and twenty-fourths are not exact in float32) and rounded once."""
    out, c = w.shape[:2]
    g = np.array(_MATRICES[m][1])
    # kron(G, G) maps the 9 taps of g (row-major) to the (m + 2)^2 entries of U (row-major).
    u = np.kron(g, g) @ w.reshape(out * c, 9).T.astype(np.float64)
    return u.astype(w.dtype).reshape(-1, 1, out, c)


def winograd_tile(x: np.ndarray, w: np.ndarray, out: tuple[int, ...]) -> int:
    """The tile size m for a 3x3 stride-1 group-1 float32 conv (the caller checks that) with
    outputs ``out``, or 0 where im2col is faster. Measured one conv at a time with the caches
    flushed before each call, as in a model run, where every conv's weights (and U) come from
    memory; single-threaded OpenBLAS, batch 1, U kept: F(4x4) from 20x20 outputs, 64 input
    channels and 32 outputs (ResNet-50's 56x56 64-channel convs 18% faster than im2col, VGG-19's
    224x224 to 28x28 ones 1.3-1.8x); F(2x2) at 14x14 with 512 channels (VGG-19's: 13%). With
    fewer channels or on smaller maps both lose to im2col (ResNet-50's 14x14 256-channel convs
    by 10%, its 7x7 ones by 1.6x and more; F(4x4) by 10-30% from 32 or 48 input channels, as
    SqueezeNet's 27x27 32-to-128 convs): U, (m + 2)^2 / 9 the weights' bytes, is read from
    memory for few tiles, and the input's transform is paid for too few products per channel.
    The choice depends on shapes only, so that a conv's rounding is the same on every call."""
    c, m, side = x.shape[1], w.shape[0], min(out)
    if side >= 20 and c >= 64 and m >= 32:
        return 4
    if side >= 14 and min(c, m) >= 512:
        return 2
    return 0


def _phase_planes(x: np.ndarray, begin: tuple[int, int], m: int, rows: int,
                  cols: int) -> np.ndarray:
    """The m x m phase planes of ``x`` (C, H, W) padded by ``begin`` before it and by zeros
    after, each (C, rows, cols) flattened: plane (p, q)[i, j] = padded[m i + p, m j + q], cut
    straight from the input (the m-aligned padded input, with a spare tile row that the last
    band's runs overhang, is never built: it cost a third of the planes' time)."""
    planes = np.zeros((m, m, x.shape[0], rows, cols), x.dtype)
    b0, b1 = begin
    h, w = min(x.shape[1], rows * m - b0), min(x.shape[2], cols * m - b1)
    for p, q in np.ndindex(m, m):
        i0, j0 = max(0, -(-(b0 - p) // m)), max(0, -(-(b1 - q) // m))
        src = x[:, m * i0 + p - b0:h:m, m * j0 + q - b1:w:m]
        planes[p, q, :, i0:i0 + src.shape[1], j0:j0 + src.shape[2]] = src
    return planes.reshape(m, m, x.shape[0], -1)


def winograd_conv(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, begin: tuple[int, int],
                  out_hw: tuple[int, int], m: int, dst: np.ndarray | None = None) -> np.ndarray:
    """The 3x3 stride-1 conv of ``x`` (N, C, H, W) by ``w`` (M, C, 3, 3), plus bias ``b``, with
    ``begin`` padding before the input and ``out_hw`` outputs, by F(m x m, 3 x 3); into ``dst``
    if given."""
    n, c, h, wd = x.shape
    n_out, a = w.shape[0], m + 2
    oh, ow = out_hw
    th, tw = -(-oh // m), -(-ow // m)
    wq = tw + 1  # a phase plane's row: the tiles and the junk column
    flat = _phase_planes(x.reshape(n * c, h, wd), begin, m, th + 2, wq)
    u = prepared(w, f"winograd U F{m}", functools.partial(_weights, m))
    bt, at = _transforms(m)
    y = np.empty((n, n_out, oh, ow), np.result_type(x, w)) if dst is None else dst
    bias = None if b is None else b.reshape(-1, 1, 1)
    band = min(th, max(_BAND // (a * a * n * max(c, n_out) * wq), -(-_MIN_COLUMNS // wq), 1))
    d = np.empty((a, a, n * c, band * wq), x.dtype)
    for i0 in range(0, th, band):
        rows = min(band, th - i0)
        length = rows * wq
        if rows < band:
            d = np.empty((a, a, n * c, length), x.dtype)
        for r, s in np.ndindex(a, a):
            start = (i0 + r // m) * wq + s // m
            d[r, s] = flat[r % m, s % m, :, start:start + length]
        # V = B^T d B: columns (s), then rows (r)
        v = np.matmul(bt, np.matmul(bt, d.reshape(a, a, -1)).reshape(a, -1))
        v = v.reshape(a * a, n, c, length)
        prod = np.matmul(u, v).reshape(a, a, -1)  # ((m + 2)^2, N, M, tiles)
        tiles = np.matmul(at, np.matmul(at, prod).reshape(a, -1))  # A^T p A: (m, m * N*M*tiles)
        tiles = tiles.reshape(m, m, n, n_out, rows, wq)
        for r, s in np.ndindex(m, m):
            # output rows m i + r of this band's tiles, columns m j + s, where they exist
            y_rs = y[:, :, m * i0 + r:min(oh, m * (i0 + rows)):m, s::m]
            t_rs = tiles[r, s, :, :, :y_rs.shape[2], :y_rs.shape[3]]
            if bias is None:
                np.copyto(y_rs, t_rs)
            else:
                np.add(t_rs, bias, out=y_rs)
    return y
