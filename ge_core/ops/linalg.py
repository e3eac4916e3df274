"""Matrix products: MatMul (numpy matmul) and Gemm (2-D, optional transposes)."""
from __future__ import annotations

from ge_core.graph.ge_tensor import UNKNOWN_DIM
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register
from ge_core.ops.shape_rules import Dims, ShapeError, broadcast, broadcasts_to


def _check_inner(k_a: int, k_b: int) -> None:
    if UNKNOWN_DIM not in (k_a, k_b) and k_a != k_b:
        raise ShapeError(f"inner dims differ: {k_a} vs {k_b}")


def matmul_dims(a: Dims, b: Dims) -> Dims:
    """[..., M, K] @ [..., K, N] -> [broadcast(...), M, N]; a 1-D operand gains then loses a
    dim (numpy's matmul, which MatMulInteger and QLinearMatMul follow too)."""
    if a is None or b is None:
        return None
    if not a or not b:
        raise ShapeError("MatMul of a scalar")
    a2 = (1,) + a if len(a) == 1 else a
    b2 = b + (1,) if len(b) == 1 else b
    _check_inner(a2[-1], b2[-2])
    out = broadcast(a2[:-2], b2[:-2])
    out += (a2[-2],) if len(a) > 1 else ()
    out += (b2[-1],) if len(b) > 1 else ()
    return out


@register("MatMul")
def _matmul(ctx: InferShapeContext) -> None:
    ctx.set_output(0, matmul_dims(ctx.dims(0), ctx.dims(1)), ctx.dtype(0))


@register("Gemm")
def _gemm(ctx: InferShapeContext) -> None:
    # y[M, N] = alpha * A'[M, K] @ B'[K, N] + beta * C, A' = A.T if transA (B likewise).
    a, b = ctx.dims(0), ctx.dims(1)
    m = k_a = k_b = n = UNKNOWN_DIM
    if a is not None:
        m, k_a = (a[1], a[0]) if ctx.attr("transA", 0) else (a[0], a[1])
    if b is not None:
        k_b, n = (b[1], b[0]) if ctx.attr("transB", 0) else (b[0], b[1])
    _check_inner(k_a, k_b)
    c = ctx.dims(2) if ctx.has_input(2) else None
    # Versions 1 and 6: C is (M, N) unless the `broadcast` attribute says it broadcasts; from
    # version 7 it always broadcasts, one way (numpy's both ways would grow the output).
    if c is not None and ctx.opset < 7 and not ctx.attr("broadcast", 0):
        if UNKNOWN_DIM not in (m, n, *c) and tuple(c) != (m, n):
            raise ShapeError(f"C is {list(c)}, not [{m}, {n}], and broadcast=0")
    elif c is not None and not broadcasts_to(tuple(c), (m, n)):
        raise ShapeError(f"C of shape {list(c)} does not broadcast to the output [{m}, {n}]")
    ctx.set_output(0, (m, n), ctx.dtype(0))
