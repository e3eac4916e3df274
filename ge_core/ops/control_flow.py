"""If and Loop: their outputs come from their subgraphs' NetOutput input descs (the refiner has
inferred the subgraphs by the time the parent node runs)."""
from __future__ import annotations

from ge_core.graph.attr_names import ATTR_NAME_PARENT_NODE_INDEX
from ge_core.graph.compute_graph import ComputeGraph
from ge_core.graph.ge_tensor import UNKNOWN_DIM, GeTensorDesc
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register
from ge_core.ops.shape_rules import ShapeError, dims_of, merge


def _body(ctx: InferShapeContext, attr: str) -> ComputeGraph:
    return ctx.node.graph.subgraph(ctx.attr(attr))


def _results(body: ComputeGraph) -> list[GeTensorDesc]:
    net_output = body.output_node
    if net_output is None:
        raise ShapeError(f"subgraph {body.name} has no NetOutput")
    return net_output.op_desc.input_descs


@register("If")
def _if(ctx: InferShapeContext) -> None:
    # Output i is then's or else's result i: the shape that covers both.
    then_out = _results(_body(ctx, "then_branch"))
    else_out = _results(_body(ctx, "else_branch"))
    if len(then_out) != len(else_out) or len(then_out) != ctx.n_outputs:
        raise ShapeError(f"branches give {len(then_out)} and {len(else_out)} results for "
                         f"{ctx.n_outputs} outputs")
    for i, (a, b) in enumerate(zip(then_out, else_out)):
        if a.dtype != b.dtype:
            raise ShapeError(f"output {i} is {a.dtype.short} in then, {b.dtype.short} in else")
        ctx.set_output(i, merge(dims_of(a.shape), dims_of(b.shape)), a.dtype)


@register("Loop")
def _loop(ctx: InferShapeContext) -> None:
    # Body results: cond, N loop-carried values, K scan outputs. A carried value may be the
    # initial one (no iteration) or the body's, so the output covers both; a scan output
    # stacks one body result per iteration along a new leading dim.
    body = _body(ctx, "body")
    results = _results(body)[1:]
    formal = [n for n in body.input_nodes
              if n.op_desc.get_attr(ATTR_NAME_PARENT_NODE_INDEX) is None]
    n_carried = len(formal) - 2  # body inputs: iteration number, cond, carried values
    if len(results) != ctx.n_outputs or n_carried < 0:
        raise ShapeError(f"body gives {len(results)} results for {ctx.n_outputs} outputs")
    for i, desc in enumerate(results):
        if i < n_carried:
            ctx.set_output(i, merge(ctx.dims(2 + i), dims_of(desc.shape)), desc.dtype)
        else:
            dims = dims_of(desc.shape)
            ctx.set_output(i, None if dims is None else (UNKNOWN_DIM,) + dims, desc.dtype)


@register("Scan")
def _scan(ctx: InferShapeContext) -> None:
    # Outputs: the body's N final states, then K scan outputs stacking one body result per step
    # (along scan_output_axes, default 0). Scan-8 puts a batch axis first on everything.
    body = _body(ctx, "body")
    results = _results(body)
    m = int(ctx.attr("num_scan_inputs"))
    first = 1 if ctx.opset < 9 else 0  # Scan-8's sequence_lens
    formal = [n for n in body.input_nodes if n.op_desc.get_attr("parent_node_index") is None]
    n_states = len(formal) - m
    scan_in = ctx.dims(first + n_states) if ctx.n_inputs > first + n_states else None
    if ctx.opset < 9:
        batch = UNKNOWN_DIM if scan_in is None else scan_in[0]
        steps = UNKNOWN_DIM if scan_in is None else scan_in[1]
    else:
        axis = (ctx.ints_attr("scan_input_axes") or [0])[0]
        steps = UNKNOWN_DIM if scan_in is None else scan_in[axis % len(scan_in)]
    out_axes = ctx.ints_attr("scan_output_axes") or []
    for i, desc in enumerate(results[:ctx.n_outputs]):
        dims = dims_of(desc.shape)
        if dims is not None and i >= n_states:
            k = i - n_states
            axis = out_axes[k] % (len(dims) + 1) if k < len(out_axes) else 0
            dims = dims[:axis] + (steps,) + dims[axis:]
        if dims is not None and ctx.opset < 9:
            dims = (batch,) + dims
        ctx.set_output(i, dims, desc.dtype)
