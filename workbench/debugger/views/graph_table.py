"""The graph as a table: one row per node (name, type, engine, stream id, memory offset, output
descs), the graphs shown (the root graph, each engine partition while the graph is
partitioned, and each If/Loop body under the node that owns it), and a node's anchors with
their peers. Plain data: the TUI's graph pane shows it (workbench/tui/graph_lines.py)."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable

from ge_core.graph.attr_names import OUTPUT_OFFSET, STREAM_ID
from ge_core.graph import ComputeGraph, Node
from npu_emu.base.counted import counted
from workbench.debugger.targets.program import RunState

COLUMNS = ("node", "type", "engine", "stream", "offset", "output")
ENGINE = "engine"
# the node attribute each column shows (what an AttrSet of that key changes)
COLUMN_OF_ATTR = {STREAM_ID: "stream", ENGINE: "engine", OUTPUT_OFFSET: "offset"}


@dataclass(frozen=True, slots=True)
class NodeRow:
    cells: tuple[str, ...]          # in COLUMNS order

    @property
    def name(self) -> str:
        return self.cells[0]


@dataclass(frozen=True)
class AnchorRow:
    anchor: str                     # "in 0", "out 1", "in ctrl", "out ctrl"
    desc: str
    peers: tuple[str, ...]          # "%conv1:0", "%relu" (control)


UNSET = "-"   # a cell with no value yet (the graph pane shows one set in a step alone, marked)


def _hex_list(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(f"{v:#x}" if isinstance(v, int) else str(v) for v in value) or UNSET
    return UNSET if value is None else str(value)


_FORMAT: dict[str, Callable[[object], str]] = {
    # GE's logical stream, named as everywhere else (s0; s0/rt1 once bound): -1 is GE's
    # kInvalidStream
    "stream": lambda v: UNSET if v is None or v == -1 else f"s{v}" if isinstance(v, int)
    else str(v),
    "engine": lambda v: UNSET if not v else str(v),
    "offset": _hex_list,
}


def attr_cell(column: str, short_repr: str) -> str:
    """An attribute's value as the table shows it, from the short repr a trace event carries."""
    try:
        value = ast.literal_eval(short_repr)
    except (ValueError, SyntaxError):   # cut short (...) or not a literal: shown as it came
        return short_repr
    return _FORMAT[column](value)


def node_row(node: Node) -> NodeRow:
    op = node.op_desc
    outputs = "; ".join(str(d) for d in op.output_descs) or UNSET
    return NodeRow((node.name, node.type, _FORMAT["engine"](op.get_attr(ENGINE)),
                    _FORMAT["stream"](op.get_attr(STREAM_ID)),
                    _hex_list(op.get_attr(OUTPUT_OFFSET)), outputs))


def ordered(graph: ComputeGraph) -> list[Node]:
    """The graph's nodes in its topological order (ComputeGraph keeps it until an edit)."""
    try:
        return graph.topological_sort()
    except Exception:   # parked inside a pass that is rewiring: insertion order still shows it
        return graph.nodes


@dataclass(frozen=True)
class ShownGraph:
    graph: ComputeGraph
    title: str
    owner: str | None = None        # the node whose body this is (a subgraph), else None


def shown_graphs(state: RunState | None) -> list[ShownGraph]:
    """The live graphs, titled: the root (with its If/Loop bodies), then each engine
    partition."""
    if state is None or state.graph is None:
        return []
    shown: list[ShownGraph] = []
    for i, g in enumerate(state.graphs()):
        kind = "graph" if i == 0 else "engine partition"
        shown.append(ShownGraph(g, f"{kind} {g.name} ({counted(len(g), 'node')})"))
        if i == 0:
            for sub in g.subgraphs:
                owner = sub.parent_node.name if sub.parent_node is not None else None
                shown.append(ShownGraph(sub, f"subgraph {sub.name} of %{owner} "
                                        f"({counted(len(sub), 'node')})", owner))
    return shown


def find_node(state: RunState | None, graph: str, name: str) -> Node | None:
    if state is None:
        return None
    for g in state.graphs():
        for member in [g, *g.subgraphs]:
            if member.name == graph:
                return member.find_node(name)
    return None


def node_anchors(node: Node) -> list[AnchorRow]:
    """In and out data anchors with their descs and peers, then the control anchors."""
    op = node.op_desc
    rows = []
    for a in node.in_data_anchors:
        peer = a.peer
        rows.append(AnchorRow(f"in {a.idx}", str(op.input_descs[a.idx]),
                              (f"%{peer.label}",) if peer is not None else ()))
    for a in node.out_data_anchors:
        rows.append(AnchorRow(f"out {a.idx}", str(op.output_descs[a.idx]),
                              tuple(f"%{p.label}" for p in a.peers)))
    rows.append(AnchorRow("in ctrl", "", tuple(f"%{p.owner.name}"
                                               for p in node.in_control_anchor.peers)))
    rows.append(AnchorRow("out ctrl", "", tuple(f"%{p.owner.name}"
                                                for p in node.out_control_anchor.peers)))
    return rows
