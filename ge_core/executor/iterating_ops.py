"""The subgraph ops that iterate over slices on the host: Scan and SequenceMap. Each runs its
body once per step through the host executor (``run_graph``); the body reads the step's slices
as its formal inputs and any value captured from the enclosing graph by parent index.

Scan (9+): N loop states then M scan inputs; each step gets the states and one slice of every
scan input (along ``scan_input_axes``, reversed by ``scan_input_directions``), returns the new
states and one element of each of K scan outputs, stacked along ``scan_output_axes`` (reversed
by ``scan_output_directions``). Scan-8 has a leading batch axis on everything, an optional
``sequence_lens`` first input and one ``directions`` list; each batch entry scans on its own.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ge_core.graph import ComputeGraph, Node
from ge_core.graph.attr_names import ATTR_NAME_PARENT_NODE_INDEX

if TYPE_CHECKING:
    from ge_core.executor.host_executor import HostExecutor


def _body(node: Node) -> ComputeGraph:
    return node.graph.root.subgraph(node.op_desc.get_attr("body"))


def _n_formal(body: ComputeGraph) -> int:
    return sum(not n.op_desc.has_attr(ATTR_NAME_PARENT_NODE_INDEX) for n in body.input_nodes)


def _per_index(values: Sequence[int] | None, n: int) -> list[int]:
    return [0 if values is None or i >= len(values) else int(values[i]) for i in range(n)]


def _scan(executor: HostExecutor, body: ComputeGraph, states: list[Any], scans: list[np.ndarray],
          in_axes: list[int], in_reverse: list[int], out_axes: list[int], out_reverse: list[int],
          captured: Sequence[Any], steps: int | None = None) -> list[Any]:
    """One scan over ``steps`` slices (all of them by default): final states + scan outputs."""
    n_steps = scans[0].shape[in_axes[0]] if steps is None else steps
    collected: list[list[np.ndarray]] = []
    for t in range(n_steps):
        slices = [np.take(x, n_steps - 1 - t if rev else t, axis=axis)
                  for x, axis, rev in zip(scans, in_axes, in_reverse)]
        outs = executor.run_graph(body, states + slices, captured)
        states = list(outs[:len(states)])
        for k, y in enumerate(outs[len(states):]):
            if len(collected) <= k:
                collected.append([])
            collected[k].append(np.asarray(y))
    stacked = []
    for k, ys in enumerate(collected):
        ys = ys[::-1] if out_reverse[k] else ys
        stacked.append(np.stack(ys, axis=out_axes[k]))
    return states + stacked


def run_scan(executor: HostExecutor, node: Node, ins: list[Any]) -> list[Any]:
    op, body = node.op_desc, _body(node)
    m = int(op.get_attr("num_scan_inputs"))
    if executor.opset >= 9:
        formal = ins[:_n_formal(body)]
        n_states = len(formal) - m
        n_outputs = len(node.out_data_anchors) - n_states
        return _scan(executor, body, list(formal[:n_states]), list(formal[n_states:]),
                     [a % formal[n_states + i].ndim for i, a in
                      enumerate(_per_index(op.get_attr("scan_input_axes"), m))],
                     _per_index(op.get_attr("scan_input_directions"), m),
                     _per_index(op.get_attr("scan_output_axes"), n_outputs),
                     _per_index(op.get_attr("scan_output_directions"), n_outputs), ins)
    return _scan_8(executor, node, body, ins, m)


def _scan_8(executor: HostExecutor, node: Node, body: ComputeGraph, ins: list[Any],
            m: int) -> list[Any]:
    """Scan-8: every input has a leading batch axis; each entry scans its own sequence_lens
    steps along axis 1, and its scan outputs are zero past them."""
    lens, formal = ins[0], ins[1:1 + _n_formal(body)]
    n_states = len(formal) - m
    n_outputs = len(node.out_data_anchors) - n_states
    batch, seq = formal[n_states].shape[:2]
    reverse = _per_index(node.op_desc.get_attr("directions"), m)
    per_entry = []
    for b in range(batch):
        steps = seq if lens is None else int(lens[b])
        per_entry.append(_scan(executor, body, [s[b] for s in formal[:n_states]],
                               [x[b] for x in formal[n_states:]], [0] * m, reverse,
                               [0] * n_outputs, [0] * n_outputs, ins, steps))
    outs = [np.stack([e[i] for e in per_entry]) for i in range(n_states)]
    for k in range(n_outputs):
        ys = [e[n_states + k] for e in per_entry]
        full = np.zeros((batch, seq) + ys[0].shape[1:], ys[0].dtype)
        for b, y in enumerate(ys):
            full[b, :len(y)] = y
        outs.append(full)
    return outs


def run_sequence_map(executor: HostExecutor, node: Node, ins: list[Any]) -> list[Any]:
    """The body once per element of the first input sequence; further sequence inputs give
    their element at the same position, tensor inputs themselves. Each output is a sequence."""
    body = _body(node)
    formal = ins[:_n_formal(body)]
    results: list[list[Any]] = [[] for _ in node.out_data_anchors]
    for i in range(len(formal[0])):
        args = [x[i] if isinstance(x, list) else x for x in formal]
        for out, value in zip(results, executor.run_graph(body, args, ins)):
            out.append(value)
    return results
