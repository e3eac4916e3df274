"""The IR as text: one line per node, stable and diff-friendly (like torch.fx's printout).

    %conv1 : Conv(%data:0, %w:0, ^%init) -> f32[1,64,112,112] => [%relu1:0] {pads=[3,3,3,3]}

Inputs name their producers (``^`` marks a control predecessor); each output shows its desc and
its consumers; attributes follow sorted by name, tensors summarised. Three levels of detail,
GE's DUMP_GE_GRAPH modes: 1 full (small tensors' values and large ones' mean), 2 without data,
3 structure only (no descs, no attributes).
"""
from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING

import numpy as np

from ge_core.graph.ge_tensor import GeTensor
from npu_emu.base.counted import counted

if TYPE_CHECKING:
    from ge_core.graph.compute_graph import ComputeGraph
    from ge_core.graph.node import Node


class Detail(IntEnum):
    FULL = 1
    NO_DATA = 2
    STRUCTURE = 3


def format_attr(value: object, detail: Detail = Detail.NO_DATA) -> str:
    if isinstance(value, GeTensor):
        return _tensor_text(value.data, str(value.desc), detail)
    if isinstance(value, np.ndarray):
        return _tensor_text(value, f"{value.dtype}{list(value.shape)}", detail)
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(format_attr(v, detail) for v in value) + "]"
    if isinstance(value, str):
        return repr(value)
    if hasattr(value, "name") and not isinstance(value, (int, bool)):  # a ComputeGraph attr
        return f"@{value.name}"
    return str(value)


def _tensor_text(data: np.ndarray, desc: str, detail: Detail) -> str:
    if data.size <= 4:
        return f"<{desc} {np.array2string(data.ravel(), separator=',')}>"
    if detail == Detail.FULL and data.dtype.kind in "fiub":
        return f"<{desc} mean={float(data.mean()):.6g}>"
    return f"<{desc}>"


def node_line(node: "Node", detail: Detail = Detail.NO_DATA) -> str:
    ins = [f"%{a.peer.label}" if a.peer else ("_" if node.op_desc.input_descs[a.idx].absent
                                                 else "<none>")
           for a in node.in_data_anchors]
    ins += [f"^%{p.owner.name}" for p in node.in_control_anchor.peers]
    outs = []
    for a in node.out_data_anchors:
        consumers = ",".join(f"%{p.label}" for p in a.peers)
        desc = "" if detail == Detail.STRUCTURE else f"{node.op_desc.output_descs[a.idx]} "
        outs.append(f"{desc}=> [{consumers}]")
    ctrl_out = [f"^%{p.owner.name}" for p in node.out_control_anchor.peers]
    if ctrl_out:
        outs.append("[" + ",".join(ctrl_out) + "]")
    attrs = {} if detail == Detail.STRUCTURE else node.op_desc.attrs
    attr_text = ", ".join(f"{k}={format_attr(attrs[k], detail)}" for k in sorted(attrs))
    subs = "".join(f" @{s}" for s in node.op_desc.subgraph_names)
    line = f"%{node.name} : {node.type}({', '.join(ins)}) -> {'; '.join(outs) or '()'}{subs}"
    return f"{line} {{{attr_text}}}" if attr_text else line


def dump_graph(graph: "ComputeGraph", detail: Detail = Detail.NO_DATA) -> str:
    """The whole graph, topologically ordered, subgraphs after their root."""
    lines = [f"graph {graph.name} ({counted(len(graph), 'node')})"]
    lines += ["  " + node_line(n, detail) for n in graph.topological_sort()]
    for sub in graph.subgraphs if graph.parent_graph is None else []:
        lines.append(f"subgraph {sub.name} of %{sub.parent_node.name} "
                     f"({counted(len(sub), 'node')})")
        lines += ["  " + node_line(n, detail) for n in sub.topological_sort()]
    return "\n".join(lines) + "\n"


def to_dot(graph: "ComputeGraph") -> str:
    """Graphviz text: data edges solid with the tensor desc, control edges dashed."""
    def q(s: str) -> str:
        return '"' + s.replace('"', r'\"') + '"'

    lines = [f"digraph {q(graph.name)} {{", "  node [shape=box, fontname=monospace];"]
    for node in graph.topological_sort():
        lines.append(f"  {q(node.name)} [label={q(node.name + chr(10) + node.type)}];")
    for node in graph.topological_sort():
        for a in node.out_data_anchors:
            for p in a.peers:
                label = str(node.op_desc.output_descs[a.idx])
                lines.append(f"  {q(node.name)} -> {q(p.owner.name)} [label={q(label)}];")
        for p in node.out_control_anchor.peers:
            lines.append(f"  {q(node.name)} -> {q(p.owner.name)} [style=dashed];")
    lines.append("}")
    return "\n".join(lines) + "\n"
