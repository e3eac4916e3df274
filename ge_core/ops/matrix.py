"""Matrix ops beyond the products: Trilu, EyeLike, Det, Einsum."""
from __future__ import annotations

from ge_core.graph.ge_tensor import UNKNOWN_DIM
from ge_core.ops.elementwise import keep_shape
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register
from ge_core.ops.shape_rules import Dims, ShapeError, broadcast


@register("Trilu")
def _trilu(ctx: InferShapeContext) -> None:
    keep_shape(ctx)  # x with one triangle zeroed


@register("EyeLike")
def _eye_like(ctx: InferShapeContext) -> None:
    # x's 2-D shape, in `dtype` (an ONNX element type) or x's.
    ctx.set_output(0, ctx.dims(0), ctx.dtype_attr("dtype") or ctx.dtype(0))


@register("Det")
def _det(ctx: InferShapeContext) -> None:
    x = ctx.dims(0)  # one determinant per trailing square matrix
    ctx.set_output(0, None if x is None else x[:-2], ctx.dtype(0))


@register("Einsum")
def _einsum(ctx: InferShapeContext) -> None:
    shapes = [ctx.dims(i) for i in range(ctx.n_inputs)]
    ctx.set_output(0, einsum_dims(str(ctx.attr("equation")), shapes), ctx.dtype(0))


def einsum_dims(equation: str, shapes: list[Dims]) -> Dims:
    """The output dims of an einsum: each output letter's size, and the operands' broadcast
    ellipsis dims where "..." stands. Without "->", the output is "..." then the letters that
    occur once, in alphabetical order."""
    lhs, arrow, rhs = equation.replace(" ", "").partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ShapeError(f"equation {equation!r} has {len(terms)} operands, the node "
                         f"{len(shapes)}")
    if any(s is None for s in shapes):
        return None
    sizes: dict[str, int] = {}
    ellipsis: Dims = ()
    for term, dims in zip(terms, shapes):
        head, dots, tail = term.partition("...")
        n_ell = len(dims) - len(head) - len(tail)
        if n_ell < 0 or (n_ell and not dots):
            raise ShapeError(f"operand {term!r} does not fit rank {len(dims)}")
        ellipsis = broadcast(ellipsis, dims[len(head):len(head) + n_ell])
        for letter, d in zip(head + tail, dims[:len(head)] + dims[len(head) + n_ell:]):
            if sizes.get(letter, UNKNOWN_DIM) in (UNKNOWN_DIM, 1):
                sizes[letter] = d
    if not arrow:
        once = sorted(c for c in sizes if lhs.count(c) == 1)
        rhs = ("..." if "..." in lhs else "") + "".join(once)
    head, _, tail = rhs.partition("...")
    return tuple(sizes[c] for c in head) + (ellipsis if "..." in rhs else ()) \
        + tuple(sizes[c] for c in tail)
