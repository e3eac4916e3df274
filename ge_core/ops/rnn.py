"""Recurrent ops: RNN, GRU, LSTM. Y[seq, dirs, batch, hidden] and the last states
Y_h (and LSTM's Y_c) [dirs, batch, hidden]; ``layout`` 1 (14+) puts batch first in each."""
from __future__ import annotations

from ge_core.graph.ge_tensor import UNKNOWN_DIM
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register

_N_DIRECTIONS = {"forward": 1, "reverse": 1, "bidirectional": 2}


@register("RNN", "GRU", "LSTM")
def _recurrent(ctx: InferShapeContext) -> None:
    x, r = ctx.dims(0), ctx.dims(2)
    hidden = ctx.count_attr("hidden_size", 1) if ctx.op_desc.has_attr("hidden_size") \
        else r[-1] if r else UNKNOWN_DIM
    dirs = _N_DIRECTIONS.get(ctx.attr("direction", "forward"), UNKNOWN_DIM)
    seq, batch = (UNKNOWN_DIM, UNKNOWN_DIM) if x is None else x[:2]
    if ctx.attr("layout", 0):
        seq, batch = batch, seq
        y, state = (batch, seq, dirs, hidden), (batch, dirs, hidden)
    else:
        y, state = (seq, dirs, batch, hidden), (dirs, batch, hidden)
    for i, dims in enumerate((y, state, state)[:ctx.n_outputs]):
        ctx.set_output(i, dims, ctx.dtype(0))
