"""Streams that do not start with the model: StreamActive and head streams.

At load, GE's BindModelStream makes a stream HEAD (it runs from the model's start) unless some
node's ``active_stream_list`` names it; those wait to be activated. Two steps of
InsertSyncNodesByLogicStream fill the lists:

- SetActiveStreamsByLabel: a node with ``_active_label_list`` activates the streams of the
  nodes carrying those ``_stream_label``s, in the list's order (a StreamSwitchN's i-th stream
  is gear i's).
- SetActiveStreamsForSubgraphs: an If/Loop body runs on its parent's stream; any further stream
  it got is started by the body's first-active StreamActive, on the parent's stream, ahead of
  the body's other work, so it is never a HEAD stream that would run whether or not the branch
  is taken. GE's label makers add that node to each body (label_maker.cc, AddStreamActive), and
  so do ours; ours inline the body, so its nodes are found by their LABEL_BODIES, the k-th
  first-active StreamActive of a region starting the region's body k.
"""
from __future__ import annotations

from ge_core.compiler.stream.stream_utils import (INVALID_STREAM, active_streams, stream_label,
                                                  stream_of)
from ge_core.compiler.stream.topo_order import model_order
from ge_core.graph import ComputeGraph, GraphUtils, Node, OpDesc
from ge_core.graph.attr_names import (ATTR_NAME_ACTIVE_LABEL_LIST, ATTR_NAME_ACTIVE_STREAM_LIST,
                                      ATTR_NAME_SUBGRAPH_FIRST_ACTIVE, ENGINE, LABEL_BODIES,
                                      LABEL_REGION, LOGIC_STREAM_ID, STREAM_ID)
from ge_core.passes import GraphPass

RTS_ENGINE = "DNN_VM_RTS"


def activators(root: ComputeGraph) -> dict[int, list[Node]]:
    """stream -> the nodes that activate it, in model order."""
    found: dict[int, list[Node]] = {}
    for node in model_order(root):
        for stream in active_streams(node):
            found.setdefault(stream, []).append(node)
    return found


def head_streams(root: ComputeGraph) -> list[int]:
    used = {stream_of(n) for n in model_order(root)} - {INVALID_STREAM}
    return sorted(used - set(activators(root)))


def activation_edges(nodes: list[Node]) -> list[tuple[Node, Node]]:
    """(active node, first node of each stream it starts): the order activation imposes."""
    first: dict[int, Node] = {}
    for node in nodes:
        first.setdefault(stream_of(node), node)
    return [(node, first[s]) for node in nodes for s in active_streams(node) if s in first]


class SetActiveStreamsByLabel(GraphPass):
    name = "SetActiveStreamsByLabel"
    covers_subgraphs = True

    def run(self, graph: ComputeGraph) -> bool:
        nodes = model_order(graph)
        labelled: dict[str, set[int]] = {}
        for node in nodes:
            if stream_label(node) and stream_of(node) != INVALID_STREAM:
                labelled.setdefault(stream_label(node), set()).add(stream_of(node))
        changed = False
        for node in nodes:
            labels = node.op_desc.get_attr(ATTR_NAME_ACTIVE_LABEL_LIST)
            if labels:   # GE's order: label by label, each label's streams ascending
                streams = [s for label in labels for s in sorted(labelled.get(label, ()))]
                node.op_desc.set_attr(ATTR_NAME_ACTIVE_STREAM_LIST, streams)
                changed = True
        return changed


class SetActiveStreamsForSubgraphs(GraphPass):
    name = "SetActiveStreamsForSubgraphs"
    covers_subgraphs = True

    def run(self, graph: ComputeGraph) -> bool:
        changed = activate_inlined_bodies(graph)
        for body in graph.subgraphs:
            changed |= activate_body_streams(body)
        return changed


def activate_inlined_bodies(graph: ComputeGraph) -> bool:
    """Give each inlined body's first-active StreamActive the body's streams other than its
    own (the nodes directly in the body: a nested body's extra streams are its own
    StreamActive's to start); whether the graph changed."""
    order = model_order(graph)
    streams: dict[str, set[int]] = {}
    for node in order:
        inside = node.op_desc.get_attr(LABEL_BODIES)
        if inside and not stream_label(node):
            streams.setdefault(inside[-1], set()).add(stream_of(node))
    seen: dict[str, int] = {}
    changed = False
    for node in order:
        region = node.op_desc.get_attr(LABEL_REGION)
        if region is None or not node.op_desc.get_attr(ATTR_NAME_SUBGRAPH_FIRST_ACTIVE):
            continue
        seen[region] = seen.get(region, -1) + 1
        body = f"{region}:{seen[region]}"
        wanted = sorted(streams.get(body, set()) - {INVALID_STREAM, stream_of(node)})
        if active_streams(node) != wanted:
            node.op_desc.set_attr(ATTR_NAME_ACTIVE_STREAM_LIST, wanted)
            changed = True
    return changed


def activate_body_streams(body: ComputeGraph) -> bool:
    """Make (or extend) the body's first-active StreamActive so it starts every stream of the
    body other than its own; whether the graph changed. SplitStreams calls it again for the
    streams it adds."""
    own = stream_of(body.parent_node)
    streams = sorted({stream_of(n) for n in body if not stream_label(n)}
                     - {INVALID_STREAM, own})
    active = next((n for n in body if n.op_desc.get_attr(ATTR_NAME_SUBGRAPH_FIRST_ACTIVE)), None)
    if not streams or (active is not None and active_streams(active) == streams):
        return False
    if active is None:
        active = _add_first_active(body, own)
    active.op_desc.set_attr(ATTR_NAME_ACTIVE_STREAM_LIST, streams)
    return True


def _add_first_active(body: ComputeGraph, stream: int) -> Node:
    order = body.topological_sort()
    active = body.add_node(OpDesc(body.unique_name(f"{body.name}_StreamActive"), "StreamActive"))
    for key, value in ((STREAM_ID, stream), (LOGIC_STREAM_ID, stream), (ENGINE, RTS_ENGINE),
                       (ATTR_NAME_SUBGRAPH_FIRST_ACTIVE, True)):
        active.op_desc.set_attr(key, value)
    first_own = next((n for n in order if stream_of(n) == stream), None)
    if first_own is not None:  # it runs first on its stream, before any of the body's work
        GraphUtils.add_edge(active.out_control_anchor, first_own.in_control_anchor)
    body.reorder([active] + order)
    return active
