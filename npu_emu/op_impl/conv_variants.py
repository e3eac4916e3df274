"""Convolutions beyond Conv: DeformConv (sampling positions moved by learned offsets) and
CausalConvWithState (a depthwise 1-D conv that carries its last inputs to the next call)
(ONNX default domain)."""
from __future__ import annotations

from typing import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from npu_emu.op_impl.broadcast import check_one_per
from npu_emu.op_impl.elementwise import sigmoid
from npu_emu.op_impl.registry import kernel
from npu_emu.op_impl.window_geometry import check_kernel_shape


def _bilinear(x: np.ndarray, py: np.ndarray, px: np.ndarray) -> np.ndarray:
    """x (N, G, Cg, H, W) read at fractional pixel positions py, px (N, G, *grid): bilinear,
    with pixels outside the image read as 0 -> (N, G, *grid, Cg)."""
    h, w = x.shape[-2:]
    y0, x0 = np.floor(py), np.floor(px)
    n_idx = np.arange(x.shape[0]).reshape((-1,) + (1,) * (py.ndim - 1))
    g_idx = np.arange(x.shape[1]).reshape((1, -1) + (1,) * (py.ndim - 2))
    out = 0.0
    for dy in (0, 1):
        for dx in (0, 1):
            yy, xx = y0 + dy, x0 + dx
            weight = (1 - np.abs(py - yy)) * (1 - np.abs(px - xx))
            inside = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)   # False for a NaN
            # read pixel 0 where outside: a NaN offset's position, cast, indexes nowhere
            yi = np.where(inside, yy, 0).astype(np.int64)
            xi = np.where(inside, xx, 0).astype(np.int64)
            values = x[n_idx, g_idx, :, yi, xi]
            out = out + np.where(inside, weight, 0)[..., None] * values
    return out


@kernel("DeformConv")
def deform_conv(x: np.ndarray, w: np.ndarray, offset: np.ndarray, b: np.ndarray | None = None,
                mask: np.ndarray | None = None, *, dilations: Sequence[int] | None = None,
                group: int = 1, kernel_shape: Sequence[int] | None = None,
                offset_group: int = 1, pads: Sequence[int] | None = None,
                strides: Sequence[int] | None = None) -> tuple[np.ndarray]:
    """A 2-D conv whose kernel tap k at output (i, j) reads x bilinearly at
    (i * stride - pad + k * dilation) + offset[k, i, j], scaled by mask[k, i, j]; each
    offset group of input channels has its own offsets. The sampled columns then meet the
    weights in one matmul per group, as im2col does."""
    n, c, h, wd = x.shape
    m, kh, kw = w.shape[0], *w.shape[2:]
    check_kernel_shape(kernel_shape, w.shape)
    check_one_per((m,), "filter", bias=b)
    oh, ow = offset.shape[2:]
    taps = offset_group * kh * kw
    if offset_group < 1 or c % offset_group or offset.shape[:2] != (n, 2 * taps) \
            or (mask is not None and mask.shape != (n, taps, oh, ow)):
        raise ValueError(f"offset {list(offset.shape)}"
                         + ("" if mask is None else f" and mask {list(mask.shape)}")
                         + f" are not [N, offset_group * 2 * kh * kw, oh, ow] and [N, "
                         f"offset_group * kh * kw, oh, ow] for X {list(x.shape)}, W "
                         f"{list(w.shape)} and offset_group {offset_group}")
    sh, sw = strides or (1, 1)
    dh, dw = dilations or (1, 1)
    ph, pw = (pads or (0, 0, 0, 0))[:2]
    off = offset.reshape(n, offset_group, kh, kw, 2, oh, ow).astype(np.float64)
    base_y = (np.arange(oh) * sh - ph)[:, None] + (np.arange(kh) * dh)[:, None, None, None]
    base_x = (np.arange(ow) * sw - pw)[None, :] + (np.arange(kw) * dw)[None, :, None, None]
    py = base_y + off[:, :, :, :, 0]                      # (N, G, kh, kw, oh, ow)
    px = base_x + off[:, :, :, :, 1]
    grouped = x.reshape(n, offset_group, c // offset_group, h, wd).astype(np.float64)
    sampled = _bilinear(grouped, py, px)                   # (N, G, kh, kw, oh, ow, Cg)
    if mask is not None:
        sampled *= mask.reshape(n, offset_group, kh, kw, oh, ow)[..., None]
    cols = np.moveaxis(sampled, -1, 2).reshape(n, group, -1, oh * ow)
    y = np.matmul(w.reshape(group, m // group, -1).astype(np.float64), cols)
    y = y.reshape(n, m, oh, ow)
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return (y.astype(x.dtype),)


@kernel("CausalConvWithState")
def causal_conv_with_state(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None = None,
                           past_state: np.ndarray | None = None, *,
                           activation: str = "none") -> tuple[np.ndarray, np.ndarray]:
    """y[b, c, t] = sum_j padded[b, c, t + j] * weight[c, 0, j] (+ bias), padded = past_state
    (zeros at the start) then x; the present state is padded's last k - 1 steps. SiLU
    (Swish) optionally follows."""
    b, c, k = (*x.shape[:2], weight.shape[2]) if x.ndim == 3 == weight.ndim else (0, 0, 0)
    if k < 1 or weight.shape != (c, 1, k) or (bias is not None and bias.shape != (c,)) \
            or (past_state is not None and past_state.shape != (b, c, k - 1)):
        raise ValueError(
            f"x {list(x.shape)}, weight {list(weight.shape)}"
            + ("" if bias is None else f", bias {list(bias.shape)}")
            + ("" if past_state is None else f", past_state {list(past_state.shape)}")
            + " are not [batch, C, L], [C, 1, k], [C] and [batch, C, k - 1]")
    past = np.zeros((*x.shape[:2], k - 1), x.dtype) if past_state is None else past_state
    padded = np.concatenate([past, x], axis=2)
    # no steps (a call with nothing new): no windows, which numpy's view will not make of k - 1
    windows = sliding_window_view(padded, k, axis=2) if x.shape[2] else np.zeros((*x.shape, k))
    y = np.einsum("bctk,ck->bct", windows, weight[:, 0])
    if bias is not None:
        y = y + bias[:, None]
    if activation in ("silu", "swish"):
        y = y * sigmoid(y)
    elif activation != "none":
        raise ValueError(f"unknown activation {activation!r}; known: none, silu, swish")
    return y.astype(x.dtype), padded[:, :, padded.shape[2] - (k - 1):]
