"""Transformer ops: Attention (23+), LinearAttention (25+) and RotaryEmbedding (23+).

Attention's 4-D tensors are [batch, heads, seq, head size]; 3-D ones [batch, seq, heads * head
size], the heads counted by q_num_heads / kv_num_heads. Outputs: Y (Q's layout, V's head size),
present_key / present_value (the cache grown by this step's keys and values), and the scores
[batch, q heads, q seq, cache + kv seq].
"""
from __future__ import annotations

from ge_core.graph.ge_tensor import UNKNOWN_DIM
from ge_core.ops.elementwise import keep_shape
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import qualified_type, register
from ge_core.ops.shape_rules import Dims, ShapeError


def _split_heads(dims: Dims, heads: object, name: str = "Q") -> Dims:
    """4-D dims of a 3-D [batch, seq, heads * size] tensor; 4-D ones as they are."""
    if dims is None or len(dims) == 4:
        return dims
    if len(dims) != 3:
        raise ShapeError(f"{name} is {len(dims)}-d; it takes [batch, seq, hidden] or "
                         f"[batch, heads, seq, size]")
    n = UNKNOWN_DIM if heads is None else int(heads)
    if n != UNKNOWN_DIM and n < 1:
        raise ShapeError(f"{name}'s {n} heads are not positive")
    size = UNKNOWN_DIM if UNKNOWN_DIM in (n, dims[2]) else dims[2] // n
    return (dims[0], n, dims[1], size)


def _add(a: int, b: int) -> int:
    return UNKNOWN_DIM if UNKNOWN_DIM in (a, b) else a + b


@register("Attention")
def _attention(ctx: InferShapeContext) -> None:
    q3 = ctx.dims(0)
    q = _split_heads(q3, ctx.attr("q_num_heads"))
    k = _split_heads(ctx.dims(1), ctx.attr("kv_num_heads"), "K")
    v = _split_heads(ctx.dims(2), ctx.attr("kv_num_heads"), "V")
    dtype = ctx.dtype(0)
    if q is None or k is None or v is None:
        for i in range(ctx.n_outputs):
            ctx.set_output(i, None, dtype)
        return
    if UNKNOWN_DIM not in (q[1], k[1]) and (not k[1] or q[1] % k[1]):
        raise ShapeError(f"Q's {q[1]} heads are no multiple of K's and V's {k[1]}")
    past = ctx.dims(4) if ctx.has_input(4) else None
    if past is not None and len(past) != 4:
        raise ShapeError(f"past_key is {len(past)}-d, not [batch, kv heads, past seq, size]")
    total = k[2] if not ctx.has_input(4) else \
        _add(past[2], k[2]) if past is not None else UNKNOWN_DIM
    if len(q3) == 3:
        hidden = UNKNOWN_DIM if UNKNOWN_DIM in (q[1], v[3]) else q[1] * v[3]
        ctx.set_output(0, (q[0], q[2], hidden), dtype)
    else:
        ctx.set_output(0, (q[0], q[1], q[2], v[3]), dtype)
    outputs = [(k[0], k[1], total, k[3]), (v[0], v[1], total, v[3]), (q[0], q[1], q[2], total)]
    for i, dims in enumerate(outputs[:ctx.n_outputs - 1], start=1):
        ctx.set_output(i, dims, dtype)


@register("LinearAttention")
def _linear_attention(ctx: InferShapeContext) -> None:
    # Y[batch, seq, q heads * value size]; the state [batch, kv heads, key size, value size].
    q = _split_heads(ctx.dims(0), ctx.attr("q_num_heads"))
    k = _split_heads(ctx.dims(1), ctx.attr("kv_num_heads"), "K")
    v = _split_heads(ctx.dims(2), ctx.attr("kv_num_heads"), "V")
    if q is None or k is None or v is None:
        ctx.set_output(0, None, ctx.dtype(0))
    else:
        hidden = UNKNOWN_DIM if UNKNOWN_DIM in (q[1], v[3]) else q[1] * v[3]
        ctx.set_output(0, (q[0], q[2], hidden), ctx.dtype(0))
    if ctx.n_outputs > 1:
        state = None if k is None or v is None else (k[0], k[1], k[3], v[3])
        ctx.set_output(1, state, ctx.dtype(3) if ctx.has_input(3) else ctx.dtype(0))


@register("RotaryEmbedding")
def _rotary_embedding(ctx: InferShapeContext) -> None:
    keep_shape(ctx)  # y: x's shape, each head's leading features rotated


@register(qualified_type("ai.onnx.preview", "FlexAttention"))
def _flex_attention(ctx: InferShapeContext) -> None:
    # Y[batch, q heads, q seq, value size], in V's dtype.
    q, v = ctx.dims(0), ctx.dims(2)
    dims = None if q is None or v is None else q[:3] + v[3:]
    ctx.set_output(0, dims, ctx.dtype(2))
