"""ONNX Loop -> GE's While (while_converter: LoweringWhile): a While node owning a cond ExeGraph
and a body ExeGraph, run by the While kernel until cond says stop.

    Loop(M, cond, v_0 ...)        body(i, cond_in, v_in ...) -> (cond_out, v_out ..., scan ...)

    IdentityAddr per v_0          the loop state starts in blocks of its own (GE copies the
                                  inputs too: the While's outputs are its state, and a state
                                  shared with another reader would be overwritten or freed)
    While                         cond:  GenCondForWhile(i, M, flag) -> go on?
                                  body:  the Loop's body, lowered; cond_out on the host (GE's
                                         LoweringWhileCondOutput), the rest on the device
                                         (LoweringWhileBodyOutput)

M and cond are read on the host; the body reads the iteration number and the flag as host
values, and captured tensors by parent_node_index. Each iteration's results are the next one's
state (the old state's blocks are freed once the body has issued its last read of them); each
scan output is stacked on the device after the last iteration. The outputs are the While's
own blocks, freed by the parent's guarders.
"""
from __future__ import annotations

from ge_core.graph import Node
from ge_core.graph.attr_names import ATTR_NAME_INDEX, ATTR_NAME_PARENT_NODE_INDEX
from ge_core.runtime.v2.execute_graph import SUBGRAPHS, ExeGraph
from ge_core.runtime.v2.lowering.lowering_context import (ANY, ON_DEVICE, ON_HOST,
                                                          LoweringContext, LoweringError)
from ge_core.runtime.v2.lowering.node_converter import register_node_converter
from ge_core.runtime.v2.lowering.subgraph_converter import lower_subgraph

MAX_TRIP, COND = 0, 1   # a Loop's inputs: M, cond, then the loop state (then captures)


@register_node_converter("Loop")
def lower_loop(node: Node, lc: LoweringContext) -> None:
    stream, stream_value = lc.stream(node)
    body = node.graph.root.subgraph(node.op_desc.get_attr("body"))
    n_state = sum(not d.op_desc.has_attr(ATTR_NAME_PARENT_NODE_INDEX)
                  for d in body.input_nodes) - 2
    anchors = node.in_data_anchors
    if n_state < 0 or len(anchors) < 2 + n_state:
        raise LoweringError(f"node {node.name} (Loop): body {body.name} takes {n_state + 2} "
                            f"formal inputs, the node has {len(anchors)} inputs")
    max_trip = lc.input(anchors[MAX_TRIP], ON_HOST)
    flag = lc.input(anchors[COND], ON_HOST)
    values = [lc.input(a, ANY) for a in anchors]
    own = []
    for k in range(n_state):
        first = lc.input(anchors[2 + k], ON_DEVICE)
        copy = lc.exe.new_value(f"{node.name} state {k}")
        identity = lc.main.add("IdentityAddr", f"{node.name} state {k}",
                               (lc.allocator, stream_value, first), (copy,), {"stream": stream})
        lc.issue(identity, stream)
        lc.read(identity, [first], stream)
        own.append(copy)

    iteration, trip, go_on = (lc.exe.new_value(f"{node.name} {what}")
                              for what in ("iteration", "max trip", "flag"))
    state = [lc.exe.new_value(f"{node.name} state {k} in") for k in range(n_state)]
    lc.on_host.update((iteration, trip, go_on))
    inner = [iteration, go_on, *state]

    def inner_data(data: Node) -> int:
        parent_index = data.op_desc.get_attr(ATTR_NAME_PARENT_NODE_INDEX)
        if parent_index is not None:
            return values[parent_index]
        return inner[data.op_desc.get_attr(ATTR_NAME_INDEX, 0)]

    results = body.output_node.op_desc.input_descs
    body_graph = lower_subgraph(body, lc, inner_data,
                                [ON_HOST] + [ON_DEVICE] * (len(results) - 1))
    cond_graph = ExeGraph(f"{node.name}_cond")
    go = lc.exe.new_value(f"{node.name} go on")
    cond_graph.add("GenCondForWhile", node.name, (iteration, trip, go_on), (go,))
    cond_graph.results = [go]
    scan_specs = [(d.shape.dims if not d.shape.is_unknown else (), d.dtype.to_numpy().name)
                  for d in results[1 + n_state:]]
    outputs = tuple(lc.exe.new_value(f"{node.name}:{i}")
                    for i in range(len(node.out_data_anchors)))
    run = lc.main.add("While", node.name,
                      (lc.allocator, stream_value, max_trip, flag, *own,
                       *values[2 + n_state:]), outputs,
                      {SUBGRAPHS: [cond_graph, body_graph], "stream": stream, "state": state,
                       "iteration": iteration, "max_trip": trip, "flag": go_on,
                       "scan_specs": scan_specs})
    lc.issue(run, stream)
    lc.read(run, values, stream)
    for i, value in enumerate(outputs):
        lc.bind(node, i, value)
        lc.new_block(value, run, stream)

