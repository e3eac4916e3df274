"""The AscBackend op's InferShape: its steps are pointwise, so each step's result broadcasts its
operands (ONNX's multidirectional rule; before opset 7 a ``broadcast`` operand takes the first's
shape) and keeps the first operand's dtype."""
from __future__ import annotations

import numpy as np

from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register
from ge_core.ops.shape_rules import ShapeError
from npu_emu.op_impl.asc_backend import ASC_BACKEND, ASC_GRAPH, ASC_OUTPUTS, AscStep


@register(ASC_BACKEND)
def _asc_backend(ctx: InferShapeContext) -> None:
    known = {f"x{i}": (ctx.dims(i), ctx.dtype(i)) for i in range(ctx.n_inputs)}
    for text in ctx.attr(ASC_GRAPH):
        step = AscStep.decode(text)
        operands = [known[name] for name in step.inputs if name is not None]
        if any(dims is None for dims, _ in operands):
            raise ShapeError(f"step {step.op} reads a value of unknown rank")
        if "broadcast" in step.attrs:
            dims = operands[0][0]
        else:
            try:
                dims = tuple(np.broadcast_shapes(*(d for d, _ in operands)))
            except ValueError as exc:
                raise ShapeError(f"step {step.op}: {exc}") from None
        known[step.out] = (dims, operands[0][1])
    for i, name in enumerate(ctx.attr(ASC_OUTPUTS)):
        dims, dtype = known[name]
        ctx.set_output(i, dims, dtype)
