"""Engine subgraphs on a merged graph: what GE's logical stream passes assign streams to.

GE assigns streams per engine subgraph, before the subgraphs are merged. Our build runs on the
merged graph, so we rebuild those subgraphs from it:

1. Walk ``engine_grouped_order`` (the order the partitioner cut by); each maximal run of
   consecutive nodes with one engine and one ``_stream_label`` is a run (GE's partitioner also
   keeps one stream label per subgraph). Constants are in no run: they launch nothing, so they
   take stream -1 like the rest of GE-local work with no inputs.
2. Cut each run into chains at forks and joins: a node continues its predecessor's subgraph
   only if each is the other's single neighbour inside the run. A run holding parallel branches
   of one engine (Inception's towers, tiny_cnn's two convs) would otherwise force them onto one
   stream and hide the same-engine parallelism that ``stream_max_parallel_num`` exists for; cut
   apart, GE's AssignByDependency rule "no reuse when another successor of the predecessor has
   its engine" puts each branch on a new stream, round-robin.

Predecessors and successors of a subgraph are those holding a data or control neighbour of its
nodes, in subgraph order (GE keeps them in pointer-ordered sets; we want determinism).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ge_core.compiler.engine_placer import Engine
from ge_core.compiler.graph_partitioner import engine_grouped_order
from ge_core.compiler.stream.stream_utils import INVALID_STREAM, engine_conf, stream_label
from ge_core.graph import ComputeGraph, Node


@dataclass(eq=False)
class StreamSubgraph:
    """GE's Subgraph of logical_stream_allocator.h: nodes, engine conf, label, stream."""
    name: str
    engine: Engine
    label: str
    nodes: list[Node]
    stream_id: int = INVALID_STREAM
    reused_subgraph: "StreamSubgraph | None" = None
    preds: list["StreamSubgraph"] = field(default_factory=list)
    succs: list["StreamSubgraph"] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"<StreamSubgraph {self.name} stream={self.stream_id}>"


def stream_subgraphs(graph: ComputeGraph) -> list[StreamSubgraph]:
    order = engine_grouped_order(graph)
    run_of: dict[Node, int] = {}
    run = -1
    for i, node in enumerate(order):
        if i == 0 or _key(node) != _key(order[i - 1]):
            run += 1
        run_of[node] = run
    chain_head = {node: node for node in order}

    def head(node: Node) -> Node:
        while chain_head[node] is not node:
            node = chain_head[node]
        return node

    for node in order:
        ins = _in_run(node.in_nodes(), run_of, run_of[node])
        if len(ins) == 1 and len(_in_run(ins[0].out_nodes(), run_of, run_of[node])) == 1:
            chain_head[node] = head(ins[0])
    members: dict[Node, list[Node]] = {}
    for node in order:
        members.setdefault(head(node), []).append(node)
    subgraphs = [StreamSubgraph(f"{graph.name}_{i}_{engine_conf(h).name}", engine_conf(h),
                                stream_label(h), nodes)
                 for i, (h, nodes) in enumerate(members.items())]
    _link(subgraphs)
    return subgraphs


def _key(node: Node) -> tuple[str, str]:
    return engine_conf(node).name, stream_label(node)


def _in_run(nodes: list[Node], run_of: dict[Node, int], run: int) -> list[Node]:
    return [n for n in dict.fromkeys(nodes) if run_of.get(n) == run]


def _link(subgraphs: list[StreamSubgraph]) -> None:
    home = {node: sg for sg in subgraphs for node in sg.nodes}
    index = {sg: i for i, sg in enumerate(subgraphs)}
    for sg in subgraphs:
        preds = {home[p] for n in sg.nodes for p in n.in_nodes() if p in home} - {sg}
        sg.preds = sorted(preds, key=index.__getitem__)
        for pred in sg.preds:
            pred.succs.append(sg)
