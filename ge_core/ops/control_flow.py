"""If, Loop and Case: their outputs come from their subgraphs' NetOutput input descs (the refiner
has inferred the subgraphs by the time the parent node runs)."""
from __future__ import annotations

import math

from ge_core.graph.attr_names import (ATTR_NAME_BATCH_NUM, ATTR_NAME_PARENT_NODE_INDEX,
                                      INFER_ALWAYS_FAILS, INFER_DEFERRED)
from ge_core.graph.compute_graph import ComputeGraph
from ge_core.graph.node import Node
from ge_core.graph.ge_tensor import UNKNOWN_DIM, GeTensorDesc
from ge_core.graph.types import DataType
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import register
from ge_core.ops.shape_rules import ShapeError, dims_of, merge, one_value


def _body(ctx: InferShapeContext, attr: str) -> ComputeGraph:
    return ctx.node.graph.subgraph(ctx.attr(attr))


def _results(body: ComputeGraph) -> list[GeTensorDesc]:
    net_output = body.output_node
    if net_output is None:
        raise ShapeError(f"subgraph {body.name} has no NetOutput")
    return net_output.op_desc.input_descs


def _giving(branches: list[ComputeGraph]) -> list[ComputeGraph]:
    """The branches that can give a result: one whose InferShape failed on shapes all known
    fails whenever it is taken. None can: the first one's error."""
    giving = [b for b in branches if not b.attrs.get(INFER_ALWAYS_FAILS)]
    if not giving:
        raise ShapeError(str(branches[0].attrs[INFER_DEFERRED]))
    return giving


@register("If")
def _if(ctx: InferShapeContext) -> None:
    # Output i is then's or else's result i: the shape that covers both.
    outs = [_results(b) for b in _giving([_body(ctx, "then_branch"), _body(ctx, "else_branch")])]
    if any(len(out) != ctx.n_outputs for out in outs):
        raise ShapeError(f"branches give {[len(out) for out in outs]} results for "
                         f"{ctx.n_outputs} outputs")
    for i, results in enumerate(zip(*outs)):
        if len({r.dtype for r in results}) != 1:
            raise ShapeError(f"output {i} is {results[0].dtype.short} in then, "
                             f"{results[1].dtype.short} in else")
        dims = dims_of(results[0].shape)
        for r in results[1:]:
            dims = merge(dims, dims_of(r.shape))
        ctx.set_output(i, dims, results[0].dtype)


@register("Loop")
def _loop(ctx: InferShapeContext) -> None:
    # Body results: cond, N loop-carried values, K scan outputs. A carried value may be the
    # initial one (no iteration) or the body's, so the output covers both; a scan output
    # stacks one body result per iteration along a new leading dim.
    for i, what in ((0, "the trip count M"), (1, "cond")):
        # a [2] M had left the body uninferred, and its outputs of no element type reached
        # the runtime
        one_value(ctx.dims(i) if ctx.has_input(i) else None, what)
    body = _body(ctx, "body")
    results = _results(body)[1:]
    formal = [n for n in body.input_nodes
              if n.op_desc.get_attr(ATTR_NAME_PARENT_NODE_INDEX) is None]
    n_carried = len(formal) - 2  # body inputs: iteration number, cond, carried values
    if len(results) != ctx.n_outputs or n_carried < 0:
        raise ShapeError(f"body gives {len(results)} results for {ctx.n_outputs} outputs")
    steps = _trip_count(ctx, body, formal[1])
    for i, desc in enumerate(results):
        if i < n_carried:
            ctx.set_output(i, merge(ctx.dims(2 + i), dims_of(desc.shape)), desc.dtype)
        else:
            dims = dims_of(desc.shape)
            ctx.set_output(i, None if dims is None else (steps,) + dims, desc.dtype)


def _trip_count(ctx: InferShapeContext, body: ComputeGraph, cond: Node) -> int:
    """How many times the Loop runs when that is fixed: a constant M, no cond input, and a body
    that hands its cond back unchanged (ScanPass's loops) run exactly M times; otherwise the
    count is known only at run time."""
    m = ctx.const(0)
    handed_back = body.output_node.in_data_anchors[0].peer
    if m is None or ctx.has_input(1) or handed_back is None or handed_back.owner is not cond:
        return UNKNOWN_DIM
    return max(int(m.reshape(-1)[0]), 0)


@register("Scan")
def _scan(ctx: InferShapeContext) -> None:
    # Outputs: the body's N final states, then K scan outputs stacking one body result per step
    # (along scan_output_axes, default 0). Scan-8 puts a batch axis first on everything.
    body = _body(ctx, "body")
    results = _results(body)
    m = int(ctx.attr("num_scan_inputs"))
    if m < 1:   # the steps are the scan inputs' length: with none there is no count of them
        raise ShapeError(f"num_scan_inputs {m}: a Scan steps along at least one scan input")
    first = 1 if ctx.opset < 9 else 0  # Scan-8's sequence_lens
    formal = [n for n in body.input_nodes
              if n.op_desc.get_attr(ATTR_NAME_PARENT_NODE_INDEX) is None]
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
@register("Case")
def _case(ctx: InferShapeContext) -> None:
    # Output i is branch k's result i for the k input 0 picks. A multi-batch Case takes the
    # largest gear's shape, so its buffer holds any gear's (GE's UpdateOutputForMultiBatch);
    # any other takes the shape that covers every branch.
    branches = [_results(b) for b in _giving([ctx.node.graph.subgraph(name)
                                              for name in ctx.op_desc.subgraph_names])]
    if not branches or any(len(b) != ctx.n_outputs for b in branches):
        raise ShapeError(f"branches give {[len(b) for b in branches]} results for "
                         f"{ctx.n_outputs} outputs")
    for i in range(ctx.n_outputs):
        results = [b[i] for b in branches]
        if len({r.dtype for r in results}) != 1:
            raise ShapeError(f"output {i} has dtypes {sorted(r.dtype.short for r in results)}")
        if ctx.attr(ATTR_NAME_BATCH_NUM) is not None:
            largest = max(results, key=lambda r: math.prod(r.shape.dims))
            ctx.set_output_desc(i, largest)
            continue
        dims = dims_of(results[0].shape)
        for r in results[1:]:
            dims = merge(dims, dims_of(r.shape))
        ctx.set_output(i, dims, results[0].dtype)


@register("FailedBranch")
def _failed_branch(ctx: InferShapeContext) -> None:
    # A static build's stand-in for a branch that always fails (ge_core/compiler/
    # failed_branch.py): its outputs are the parent's, set when it was made.
    pass


# -- TensorFlow-style control flow and GE's stream ops (passes/control_flow_and_stream) --------
@register("Switch")
def _switch(ctx: InferShapeContext) -> None:
    # Switch(data, pred): output 0 (pred false) and output 1 (pred true) are both data's.
    for i in range(ctx.n_outputs):
        ctx.set_output_desc(i, ctx.op_desc.input_descs[0])


@register("Merge", "StreamMerge")
def _merge(ctx: InferShapeContext) -> None:
    # Output 0 is whichever input arrived (the inputs agree: GE's MergeInferShape); output 1,
    # if the model reads it, that input's index.
    ctx.set_output_desc(0, ctx.op_desc.input_descs[0])
    if ctx.n_outputs > 1:
        ctx.set_output(1, [], DataType.DT_INT32)


@register("StreamSwitch", "StreamActive")
def _no_outputs(ctx: InferShapeContext) -> None:
    """They start streams and give no tensor."""


@register("MemcpyAsync")
def _memcpy_async(ctx: InferShapeContext) -> None:
    """The pass or maker that adds a copy gives its output the desc of the buffer it fills (a
    Case branch's copy fills the largest gear's): there is nothing to infer."""


def check_scan_pieces(shapes: list[tuple[int, ...]], output: int) -> None:
    """A Loop's scan output stacks one piece per iteration, so every piece has the first's shape
    (onnxruntime refuses another too): the host executor and the v2 While check it alike."""
    for i, shape in enumerate(shapes):
        if shape != shapes[0]:
            raise ValueError(f"scan output {output}: iteration {i}'s piece {list(shape)} differs "
                             f"from iteration 0's {list(shapes[0])}")
