"""The one node order the build works in (GE's op ids).

GE sorts the graph once before the build and numbers the ops; stream passes compare those ids,
events are optimised against each stream's order, and tasks go to each stream in that order. We
fix it the same way: ``fix_build_order`` makes it each graph's own order (ComputeGraph.reorder),
so every later stage that walks ``topological_sort()`` sees exactly what the events assumed.
Event nodes are then spliced in beside their nodes (GE's ReorderEventNodes) without moving
anything else.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from ge_core.compiler.graph_partitioner import engine_grouped_order
from ge_core.graph import ComputeGraph, Node


def build_order(graph: ComputeGraph) -> list[Node]:
    """Constants first (they launch nothing), then the engine-grouped order the engine
    subgraphs come from, so a subgraph's nodes are contiguous wherever they can be."""
    return [n for n in graph if n.type == "Const"] + engine_grouped_order(graph)


def fix_build_order(root: ComputeGraph) -> None:
    for graph in [root] + root.subgraphs:
        graph.reorder(build_order(graph))


def model_order(graph: ComputeGraph) -> list[Node]:
    """Every node of the model in build order, each body right after its parent node (GE's
    GetAllNodes): the order a stream shared by a parent and its bodies runs in."""
    order: list[Node] = []
    for node in graph.topological_sort():
        order.append(node)
        for name in node.op_desc.subgraph_names:
            order += model_order(graph.subgraph(name))
    return order


def op_ids(root: ComputeGraph) -> dict[Node, int]:
    return {node: i for i, node in enumerate(model_order(root))}


def reorder_event_nodes(graph: ComputeGraph, order: list[Node],
                        before: Mapping[Node, Sequence[Node]],
                        after: Mapping[Node, Sequence[Node]]) -> None:
    """Make ``order`` (the graph's order from before the event nodes were added: a fresh sort
    would let their control edges move the nodes the events were optimised around) the graph's
    order, with each node's ``before`` nodes (its Recvs) just before it and its ``after`` nodes
    (its Sends) just after it."""
    graph.reorder([n for node in order for n in (*before.get(node, ()), node,
                                                 *after.get(node, ()))])
