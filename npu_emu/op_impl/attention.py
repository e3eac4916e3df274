"""Transformer kernels: Attention (23; 24 adds the external cache's ``nonpad_kv_seqlen``, 25 the
sliding window), LinearAttention (25), RotaryEmbedding (23) and ai.onnx.preview's FlexAttention.

Attention computes softmax(Q K^T * scale + bias) V per head, where the additive bias gathers every
mask: ``attn_mask`` (bool: False masks; float: added), causal (aligned bottom-right: a query sees
the keys before it plus those of the cache in front of it), the sliding window and the external
cache's padding, each a 0 / -inf term. A query row that every term masks gives zeros, not NaN.
3-D inputs carry the heads in their last dim; fewer K/V heads than Q heads are shared by
consecutive Q heads (grouped-query attention).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from npu_emu.op_impl.axis import check_indices
from npu_emu.op_impl.broadcast import check_onto
from npu_emu.op_impl.cast import element_dtype
from npu_emu.op_impl.elementwise import one_output
from npu_emu.op_impl.registry import kernel


def _heads(x: np.ndarray, n_heads: int | None, name: str = "Q") -> np.ndarray:
    """[batch, seq, heads * size] -> [batch, heads, seq, size]; 4-D stays."""
    if x.ndim == 4:
        return x
    if x.ndim != 3:
        raise ValueError(f"{name} is {x.ndim}-d; it takes [batch, seq, hidden] or "
                         f"[batch, heads, seq, size]")
    b, s, hidden = x.shape
    if not n_heads or n_heads < 1 or hidden % n_heads:
        raise ValueError(f"{name}'s hidden size {hidden} does not split into {n_heads} heads")
    return x.reshape(b, s, n_heads, hidden // n_heads).transpose(0, 2, 1, 3)


def _check_heads(q: np.ndarray, k: np.ndarray, v: np.ndarray, key_size: bool = True) -> None:
    """Q, K and V as [batch, heads, seq, size] agree as ONNX says they must (numpy's own error
    otherwise, or silently a wrong shape: Q heads fewer than K/V's grouped to 0); Q's head size
    is K's unless ``key_size`` is False (LinearAttention's keys are a state's rows)."""
    if not q.shape[0] == k.shape[0] == v.shape[0]:
        raise ValueError(f"Q, K and V have batches {q.shape[0]}, {k.shape[0]} and {v.shape[0]}")
    if k.shape[1] != v.shape[1] or k.shape[2] != v.shape[2]:
        raise ValueError(f"K has {k.shape[1]} heads of {k.shape[2]} keys, V {v.shape[1]} of "
                         f"{v.shape[2]}")
    if not k.shape[1] or q.shape[1] % k.shape[1]:
        raise ValueError(f"Q's {q.shape[1]} heads are no multiple of K's and V's {k.shape[1]}")
    if key_size and q.shape[3] != k.shape[3]:
        raise ValueError(f"Q's head size {q.shape[3]} is not K's {k.shape[3]}")


def _frontier(q_len: int, kv_len: int, offset: np.ndarray | int) -> np.ndarray:
    """query index minus key index, as seen from the cache: [q, kv], or [batch, 1, q, kv] for a
    per-batch offset (the external cache's valid lengths)."""
    diff = np.arange(q_len)[:, None] - np.arange(kv_len)[None, :]
    if np.ndim(offset):
        return diff + np.reshape(offset, (-1, 1, 1, 1))
    return diff + offset


def _check_mask(mask: np.ndarray, scores: tuple[int, ...]) -> None:
    """attn_mask broadcasts onto the scores [batch, heads, q, kv] once padded (its last dim at
    most the keys'): a 0-d one was an IndexError, one longer than the keys or unlike the
    queries numpy's broadcast error, before check_onto read the bias."""
    if not 1 <= mask.ndim <= 4 or mask.shape[-1] > scores[-1] or any(
            d not in (1, want) for d, want in zip(mask.shape[-2::-1], scores[-2::-1])):
        raise ValueError(f"attn_mask of shape {list(mask.shape)} does not broadcast to the "
                         f"scores [batch, heads, q, kv] {list(scores)}")


def _bias(q: np.ndarray, kv_len: int, attn_mask: np.ndarray | None, past_len: int,
          nonpad_kv_seqlen: np.ndarray | None, is_causal: int, left_window: int,
          right_window: int) -> np.ndarray:
    """The additive mask, broadcastable to [batch, heads, q, kv]."""
    dtype, q_len = q.dtype, q.shape[2]
    neg_inf = dtype.type(-np.inf)
    bias = np.zeros((q_len, kv_len), dtype)
    if attn_mask is not None:
        _check_mask(attn_mask, (*q.shape[:3], kv_len))
        short = kv_len - attn_mask.shape[-1]  # a mask shorter than the keys masks the rest
        if short > 0:
            fill = False if attn_mask.dtype == np.bool_ else -np.inf
            attn_mask = np.pad(attn_mask, [(0, 0)] * (attn_mask.ndim - 1) + [(0, short)],
                               constant_values=fill)
        bias = bias + (np.where(attn_mask, dtype.type(0), neg_inf)
                       if attn_mask.dtype == np.bool_ else attn_mask.astype(dtype))
    # The external cache (no past_key): queries sit at the end of each batch's valid keys.
    offset = past_len if nonpad_kv_seqlen is None else nonpad_kv_seqlen.reshape(-1) - q_len
    if is_causal or left_window >= 0 or right_window >= 0:
        ahead = _frontier(q_len, kv_len, offset)  # >= 0: the key is not after the query
        allowed = ahead >= 0 if is_causal else np.ones_like(ahead, bool)
        if left_window >= 0:
            allowed &= ahead <= left_window
        if right_window >= 0:
            allowed &= -ahead <= right_window
        bias = bias + np.where(allowed, dtype.type(0), neg_inf)
    if nonpad_kv_seqlen is not None:
        valid = np.arange(kv_len) < nonpad_kv_seqlen.reshape(-1, 1, 1, 1)
        bias = bias + np.where(valid, dtype.type(0), neg_inf)
    return bias


def _softmax_rows(x: np.ndarray, masked: np.ndarray) -> np.ndarray:
    """Softmax over the last axis; rows with ``masked`` set (every key masked) are 0."""
    top = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - np.where(np.isneginf(top) | masked, 0, top))
    total = np.sum(e, axis=-1, keepdims=True)
    return np.where(masked, 0, e / np.where(total == 0, 1, total))


@kernel("Attention", since=23)
def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, attn_mask: np.ndarray | None = None,
              past_key: np.ndarray | None = None, past_value: np.ndarray | None = None,
              nonpad_kv_seqlen: np.ndarray | None = None, *, is_causal: int = 0,
              q_num_heads: int | None = None, kv_num_heads: int | None = None,
              scale: float | None = None, softcap: float = 0.0,
              softmax_precision: int | None = None, qk_matmul_output_mode: int = 0,
              left_window_size: int = -1, right_window_size: int = -1
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(Y, present_key, present_value, qk_matmul_output): the last three are optional
    outputs; qk_matmul_output is Q K^T (mode 0), + softcap (1), + mask (2) or the softmax (3)."""
    rank = q.ndim
    q, k, v = _heads(q, q_num_heads), _heads(k, kv_num_heads, "K"), _heads(v, kv_num_heads, "V")
    _check_heads(q, k, v)
    past_len = 0 if past_key is None else past_key.shape[2]
    present_key = k if past_key is None else np.concatenate([past_key, k], axis=2)
    present_value = v if past_value is None else np.concatenate([past_value, v], axis=2)
    # sqrt(scale) on each side, as the op's function body scales: its float16 rounding too.
    root = q.dtype.type(np.sqrt(1 / np.sqrt(q.shape[3]) if scale is None else scale))
    group = q.shape[1] // present_key.shape[1]
    keys = np.repeat(present_key, group, axis=1)
    values = np.repeat(present_value, group, axis=1)
    # numpy's matmul of bfloat16 gives float32: each product rounds back, as the op's does.
    scores = np.matmul(q * root, np.swapaxes(keys * root, -1, -2)).astype(q.dtype)
    if softcap > 0:
        scores = softcap * np.tanh(scores / softcap)
    bias = _bias(q, keys.shape[2], attn_mask, past_len, nonpad_kv_seqlen, is_causal,
                 left_window_size, right_window_size)
    check_onto(bias, scores.shape, "attn_mask", "the scores [batch, heads, q, kv]")
    biased = scores + bias
    exposed = {0: scores, 1: scores, 2: biased}.get(qk_matmul_output_mode)
    if softmax_precision:
        biased = biased.astype(element_dtype(softmax_precision, "softmax_precision"))
    masked = np.isneginf(np.max(bias, axis=-1, keepdims=True))
    probs = _softmax_rows(biased, masked).astype(q.dtype)
    y = np.matmul(probs, values).astype(q.dtype)
    if rank == 3:
        y = y.transpose(0, 2, 1, 3).reshape(y.shape[0], y.shape[2], -1)
    exposed = probs if exposed is None else exposed.astype(q.dtype)
    return y, present_key, present_value, exposed


@one_output("RotaryEmbedding", since=23)
def rotary_embedding(x: np.ndarray, cos_cache: np.ndarray, sin_cache: np.ndarray,
                     position_ids: np.ndarray | None = None, *, interleaved: int = 0,
                     num_heads: int = 0, rotary_embedding_dim: int = 0) -> np.ndarray:
    """Rotates the first ``rotary_embedding_dim`` features of each head (all by default) as
    pairs: halves of the rotated part, or (interleaved) even/odd neighbours. x is [batch, heads,
    seq, size], or [batch, seq, heads * size]; the caches are [positions, dim / 2] looked up by
    ``position_ids`` [batch, seq], or already [batch, seq, dim / 2]."""
    heads = _heads(x, num_heads, "x")   # numpy's reshape refused a num_heads of 0 or -1
    batch, seq, size = heads.shape[0], heads.shape[2], heads.shape[3]
    dim = rotary_embedding_dim or size
    if not 0 < dim <= size or dim % 2:
        raise ValueError(f"rotary_embedding_dim {rotary_embedding_dim} is not an even count of "
                         f"at most the head size {size}")
    if position_ids is not None:
        check_indices(position_ids, cos_cache.shape[0],
                      f"cos_cache {list(cos_cache.shape)}'s positions", "position_ids")
        cos_cache, sin_cache = cos_cache[position_ids], sin_cache[position_ids]
    if cos_cache.shape != (batch, seq, dim // 2) or sin_cache.shape != cos_cache.shape:
        # numpy's "operands could not be broadcast together"
        looked_up = " at position_ids" if position_ids is not None else ""
        raise ValueError(f"cos_cache and sin_cache{looked_up} are {list(cos_cache.shape)} and "
                         f"{list(sin_cache.shape)}, not [batch {batch}, seq {seq}, "
                         f"rotary dim / 2 = {dim // 2}]")
    cos, sin = cos_cache[:, None], sin_cache[:, None]  # [batch, 1 (heads), seq, dim / 2]
    part = heads[..., :dim]
    first, second = (part[..., 0::2], part[..., 1::2]) if interleaved else \
        (part[..., :dim // 2], part[..., dim // 2:])
    real, imag = cos * first - sin * second, sin * first + cos * second
    rotated = np.stack([real, imag], axis=-1).reshape(part.shape) if interleaved else \
        np.concatenate([real, imag], axis=-1)
    out = np.concatenate([rotated, heads[..., dim:]], axis=-1).astype(x.dtype)
    return out if x.ndim == 4 else out.transpose(0, 2, 1, 3).reshape(x.shape)


_UPDATE_RULES = {"linear": (False, False), "gated": (True, False), "delta": (False, True),
                 "gated_delta": (True, True)}


@kernel("LinearAttention", since=25)
def linear_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray,
                     past_state: np.ndarray | None = None, decay: np.ndarray | None = None,
                     beta: np.ndarray | None = None, *, q_num_heads: int, kv_num_heads: int,
                     scale: float = 0.0, update_rule: str = "gated_delta",
                     chunk_size: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Attention as a recurrence over a state S[batch, kv heads, key size, value size], in
    float32, one time step after another: S decays by exp(decay) (gated rules), the value is
    corrected by what S already recalls for the key, times beta (delta rules), S gains the
    outer product key x value, and each query reads scale * q . S. Returns (Y, final S);
    ``chunk_size`` only tunes real kernels."""
    gated, delta = _UPDATE_RULES[update_rule]
    qh = _heads(q, q_num_heads).astype(np.float32)
    kh, vh = (_heads(x, kv_num_heads, name).astype(np.float32) for x, name in ((k, "K"), (v, "V")))
    _check_heads(qh, kh, vh, key_size=False)
    if qh.shape[2] != kh.shape[2]:
        raise ValueError(f"Q has {qh.shape[2]} steps, K and V {kh.shape[2]}")
    for name, x in (("decay", decay), ("beta", beta)):
        if x is not None and x.shape[:2] != (kh.shape[0], kh.shape[2]):
            raise ValueError(f"{name} of shape {list(x.shape)} is not [batch {kh.shape[0]}, "
                             f"steps {kh.shape[2]}, ...]")
    batch, _, steps, key_size = kh.shape
    scale = scale or 1 / np.sqrt(qh.shape[-1])
    state = np.zeros((batch, kv_num_heads, key_size, vh.shape[-1]), np.float32) \
        if past_state is None else past_state.astype(np.float32)
    # decay: one per kv head, or one per key feature; beta: per kv head or one for all.
    g = None if decay is None else np.exp(decay.astype(np.float32).reshape(
        batch, steps, kv_num_heads, -1).transpose(0, 2, 1, 3))
    b = None if beta is None else beta.astype(np.float32).reshape(
        batch, steps, -1, 1).transpose(0, 2, 1, 3)
    group = q_num_heads // kv_num_heads
    y = np.empty(qh.shape[:3] + (vh.shape[-1],), np.float32)
    for t in range(steps):
        if gated:
            state = state * g[:, :, t, :, None]
        value = vh[:, :, t]
        if delta:
            recalled = np.einsum("bhkv,bhk->bhv", state, kh[:, :, t])
            value = b[:, :, t] * (value - recalled)
        state = state + kh[:, :, t, :, None] * value[:, :, None, :]
        y[:, :, t] = scale * np.einsum("bhk,bhkv->bhv", qh[:, :, t],
                                       np.repeat(state, group, axis=1))
    out = y.transpose(0, 2, 1, 3).reshape(batch, steps, -1).astype(q.dtype)
    return out, state.astype(q.dtype if past_state is None else past_state.dtype)


Modifier = Callable[[np.ndarray], np.ndarray]


@kernel("ai.onnx.preview::FlexAttention")
def flex_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, *, scale: float | None = None,
                   softmax_precision: int | None = None, score_mod: Modifier | None = None,
                   prob_mod: Modifier | None = None) -> tuple[np.ndarray]:
    """softmax(score_mod(Q K^T * scale)) with prob_mod applied to the probabilities, times V;
    4-D tensors, K/V heads shared by groups of Q heads. The mods are the op's graph attributes
    as functions of one tensor (the host executor makes them from the subgraphs). Scores and
    probabilities are float32 at least (float16/bfloat16 inputs widen) unless softmax_precision
    names a type."""
    _check_heads(q, k, v)
    group = q.shape[1] // k.shape[1]
    keys, values = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    root = q.dtype.type(np.sqrt(np.float32(1 / np.sqrt(q.shape[3]) if scale is None else scale)))
    precision = element_dtype(softmax_precision, "softmax_precision") if softmax_precision else \
        np.promote_types(q.dtype, np.float32)
    scores = np.matmul(q * root, np.swapaxes(keys * root, -1, -2)).astype(precision)
    if score_mod is not None:
        scores = np.asarray(score_mod(scores), precision)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    probs = e / e.sum(axis=-1, keepdims=True)
    if prob_mod is not None:
        probs = np.asarray(prob_mod(probs), precision)
    return (np.matmul(probs, values.astype(precision)).astype(v.dtype),)
