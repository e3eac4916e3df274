"""ComputeGraph <-> ModelDef / GraphDef / OpDef (GE's model_serialize.cc).

An op's inputs are written as GE writes them: ``"src:out_idx"`` per data input (``""`` for one
left unlinked), then ``"src:-1"`` per control predecessor; loading links edges from them. Anchors
keep their peers in link order and the IR dump shows that order, so each op also lists where
its outputs go (``dst_name``/``dst_index``, -1 for control) and loading restores that order.

The OpDesc members GE keeps in OpDef fields rather than attrs go there: ``stream_id`` and the
memory offsets (``input_i``, ``output_i``, ``workspace``, ``workspace_bytes``). A repeated
field cannot tell an empty list from none, so an empty one stays in the attr map.
Subgraphs follow the root graph in ModelDef.graph, each found again through its parent's
``subgraph_name``.
"""
from __future__ import annotations

from typing import Any

from ge_core.graph import ComputeGraph, GraphError, Node, OpDesc
from ge_core.graph.attr_names import (ATTR_NAME_WEIGHTS, INPUT_OFFSET, OUTPUT_OFFSET, SOURCE,
                                      STREAM_ID, WORKSPACE, WORKSPACE_BYTES)
from ge_core.om.attr_serializer import attr_def, attr_value
from ge_core.om.proto import ge_ir_pb2 as pb
from ge_core.om.tensor_serializer import (SerializeError, tensor_def, tensor_desc,
                                          tensor_descriptor)
from ge_core.om.weights import weight_offset

_MEMBER_LISTS = {INPUT_OFFSET: "input_i", OUTPUT_OFFSET: "output_i", WORKSPACE: "workspace",
                 WORKSPACE_BYTES: "workspace_bytes"}
IR_VERSION = 1  # ModelDef.version: bump when what the fields mean changes


# -- IR -> proto ---------------------------------------------------------------------------------
def op_def(node: Node, detach_weights: bool = False) -> pb.OpDef:
    """``detach_weights``: a Const with a weight address keeps only a reference to its bytes."""
    op = node.op_desc
    out = pb.OpDef(name=op.name, type=op.type, subgraph_name=op.subgraph_names)
    out.input.extend(f"{a.peer.owner.name}:{a.peer.idx}" if a.peer else ""
                     for a in node.in_data_anchors)
    out.input.extend(f"{p.owner.name}:-1" for p in node.in_control_anchor.peers)
    for _, dst in node.out_edges():
        out.dst_name.append(dst.owner.name)
        out.dst_index.append(dst.idx)
    offset = weight_offset(node) if detach_weights else None
    for key, value in op.attrs.items():
        try:
            _put_attr(out, key, value, offset if key == ATTR_NAME_WEIGHTS else None)
        except SerializeError as err:
            raise SerializeError(f"node {op.name} ({op.type}) attr {key}: {err}") from None
    try:
        for d, n in zip(op.input_descs, op.input_names):
            tensor_descriptor(d, n, into=out.input_desc.add())
        for d, n in zip(op.output_descs, op.output_names):
            tensor_descriptor(d, n, into=out.output_desc.add())
    except SerializeError as err:
        raise SerializeError(f"node {op.name} ({op.type}): {err}") from None
    return out


def _put_attr(out: pb.OpDef, key: str, value: Any, detached_at: int | None) -> None:
    if key == STREAM_ID:
        out.stream_id = value
    elif key in _MEMBER_LISTS and value:
        getattr(out, _MEMBER_LISTS[key]).extend(value)
    elif detached_at is not None:
        out.attr[key].t.CopyFrom(tensor_def(value, detached_at))
    else:
        attr_def(value, into=out.attr[key])


def graph_def(graph: ComputeGraph, detach_weights: bool = False) -> pb.GraphDef:
    """One graph's ops in insertion order (which the topological sort's tie-break follows)."""
    out = pb.GraphDef(name=graph.name)
    out.op.extend(op_def(n, detach_weights) for n in graph.nodes)
    for key, value in graph.attrs.items():
        if key != SOURCE:   # where the model was read from is no part of it: same model, same OM
            out.attr[key].CopyFrom(attr_def(value))
    return out


def model_def(graph: ComputeGraph, name: str, attrs: dict[str, Any] | None = None,
              detach_weights: bool = False) -> pb.ModelDef:
    out = pb.ModelDef(name=name, version=IR_VERSION)
    out.graph.extend(graph_def(g, detach_weights) for g in [graph, *graph.subgraphs])
    for key, value in (attrs or {}).items():
        out.attr[key].CopyFrom(attr_def(value))
    return out


# -- proto -> IR ---------------------------------------------------------------------------------
def graph_of(model: pb.ModelDef, weights: bytes | None = None) -> ComputeGraph:
    """The root graph (with its subgraphs) of a ModelDef; detached weights come from
    ``weights``."""
    if not model.graph:
        raise SerializeError(f"model {model.name!r} has no graph")
    graphs = [_graph_nodes(gd, weights) for gd in model.graph]
    for g, gd in zip(graphs, model.graph):
        _link(g, gd)
    root = graphs[0]
    parents = {sub: g.find_node(op.name) for g, gd in zip(graphs, model.graph)
               for op in gd.op for sub in op.subgraph_name}
    for sub in graphs[1:]:
        if sub.name not in parents:
            raise SerializeError(f"subgraph {sub.name} has no parent op")
        root.add_subgraph(parents[sub.name], sub)
    return root


def _graph_nodes(gd: pb.GraphDef, weights: bytes | None) -> ComputeGraph:
    # made with the file's attributes: a graph read, not edited
    graph = ComputeGraph(gd.name, attrs={k: attr_value(v) for k, v in gd.attr.items()})
    for op in gd.op:
        try:
            graph.add_node(_op_desc(op, weights))
        except SerializeError as err:
            raise SerializeError(f"graph {gd.name} node {op.name} ({op.type}): {err}") from None
    return graph


def _op_desc(op: pb.OpDef, weights: bytes | None) -> OpDesc:
    attrs: dict[str, Any] = {k: attr_value(v, weights) for k, v in op.attr.items()}
    if op.HasField("stream_id"):
        attrs[STREAM_ID] = op.stream_id
    for key, field in _MEMBER_LISTS.items():
        if getattr(op, field):
            attrs[key] = list(getattr(op, field))
    desc = OpDesc(op.name, op.type, 0, 0, attrs)
    desc.input_descs = [tensor_desc(td) for td in op.input_desc]
    desc.output_descs = [tensor_desc(td) for td in op.output_desc]
    desc.input_names = [td.name for td in op.input_desc]
    desc.output_names = [td.name for td in op.output_desc]
    return desc  # subgraph names come back as graph_of attaches the subgraphs


def _link(graph: ComputeGraph, gd: pb.GraphDef) -> None:
    for op in gd.op:
        node = graph.find_node(op.name)
        # a control input listed twice is one edge, told by a set: a region's first is read by
        # the tail of every region before it, and a list's check per edge makes K^3
        controls: set[str] = set()
        for idx, src in enumerate(op.input):
            if not src or src in controls:
                continue
            try:
                if _link_input(graph, node, idx, src):
                    controls.add(src)
            except (GraphError, ValueError) as err:
                raise SerializeError(f"graph {gd.name} node {op.name}: input {src!r}: "
                                     f"{err}") from None
    for op in gd.op:
        _restore_peer_order(graph.find_node(op.name), op)


def _link_input(graph: ComputeGraph, node: Node, idx: int, src: str) -> bool:
    """Link ``node``'s input ``idx`` from ``src``; whether it was a control edge (the node's
    first from ``src``: its caller keeps them)."""
    name, _, out_idx = src.rpartition(":")
    producer = graph.find_node(name)
    if producer is None:
        raise ValueError("no such node")
    data_inputs = len(node.in_data_anchors)
    if (idx < data_inputs) != (out_idx != "-1"):   # data inputs first, one per input desc
        raise ValueError(f"input {idx} is {'a control' if out_idx == '-1' else 'a data'} "
                         f"input; the node has {data_inputs} input desc(s)")
    if idx < data_inputs:
        outputs = len(producer.out_data_anchors)
        if not out_idx.isdecimal() or int(out_idx) >= outputs:
            raise ValueError(f"{name} has no output {out_idx} (it has {outputs})")
        producer.out_data_anchor(int(out_idx)).link_to(node.in_data_anchor(idx))
        return False
    producer.out_control_anchor.link_new(node.in_control_anchor)
    return True


def _restore_peer_order(node: Node, op: pb.OpDef) -> None:
    rank = {(name, idx): k for k, (name, idx) in enumerate(zip(op.dst_name, op.dst_index))}
    for anchor in [*node.out_data_anchors, node.out_control_anchor]:
        anchor.peers.sort(key=lambda p: rank.get((p.owner.name, p.idx), len(rank)))
