"""ai.onnx.preview.training's optimizer steps (Momentum, Adagrad, Adam): each new tensor or
optimizer state has the desc of the one it replaces."""
from __future__ import annotations

from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.shape_rules import ShapeError
from ge_core.ops.op_registry import qualified_type, register

_DOMAIN = "ai.onnx.preview.training"
# Inputs per updated tensor: X, G and its states (Adam keeps two).
_INPUTS_PER_TENSOR = {"Momentum": 3, "Adagrad": 3, "Adam": 4}


@register(*(qualified_type(_DOMAIN, op) for op in _INPUTS_PER_TENSOR))
def _optimizer_step(ctx: InferShapeContext) -> None:
    # Inputs R, T, X_1..X_n, G_1..G_n, states; outputs X_1'..X_n', states' (no G's).
    per = _INPUTS_PER_TENSOR[ctx.node.type.split("::")[-1]]
    n, extra = divmod(ctx.n_inputs - 2, per)
    if n < 1 or extra or ctx.n_outputs > n * (per - 1):
        raise ShapeError(f"{ctx.n_inputs} inputs and {ctx.n_outputs} outputs are not R, T and "
                         f"{per} per tensor in, at most {per - 1} per tensor out")
    for k in range(ctx.n_outputs):
        source = 2 + k + (n if k >= n else 0)
        ctx.set_output(k, ctx.dims(source), ctx.dtype(source))
