"""GE's OnnxUtils (graph_metadef/graph/utils/ge_ir_utils.cc): a ComputeGraph as an ONNX
ModelProto for the ``ge_onnx_*`` dumps, which Netron draws.

GE's encoding, kept: a node per op in topological order; inputs written ``src:idx`` (an unlinked
one ``""``, a control edge ``src:-1``); an output ``name:idx`` for each anchor something reads
(``name:-1`` for control); the descs and the op's attributes as flat attributes sorted by name
(``input_desc_shape:0``, ``output_desc_dtype:0``, ...); string attributes and tensor data only
at DUMP_GE_GRAPH=1, no attributes at all at 3.

Three departures so that ``onnx.checker`` accepts the file: GE writes op types as ``ge:<type>``
in the default domain, where the checker knows no such op, so here the types sit in a ``ge``
domain (Netron shows them just the same); the graph's outputs are the tensors NetOutput reads,
where GE names the NetOutput node itself, which no node produces; and a subgraph is a graph
attribute of the node that owns it (named after the subgraph), where GE adds a node of type
``subgraph`` with neither inputs nor outputs, which the checker refuses.
"""
from __future__ import annotations

from typing import Any

import onnx
from onnx import AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto, ValueInfoProto

from ge_core.graph import ComputeGraph, GeTensorDesc, Node
from ge_core.graph.dump import Detail
from ge_core.graph.types import DataType
from ge_core.om.model_serializer import op_def
from ge_core.om.proto import ge_ir_pb2 as pb

GE_DOMAIN = "ge"
CONTROL_INDEX = -1           # GE's kControlAnchorIndex ":-1"
_A = AttributeProto
_LV = pb.AttrDef.ListValue


def onnx_model(graph: ComputeGraph, detail: Detail = Detail.NO_DATA) -> ModelProto:
    """The root graph, its subgraphs nested in their owners (GE's ConvertGeModelToModelProto)."""
    model = ModelProto(ir_version=onnx.IR_VERSION, producer_name="GE")
    model.opset_import.add(domain=GE_DOMAIN, version=1)
    model.graph.CopyFrom(_graph(graph, detail))
    return model


def _graph(graph: ComputeGraph, detail: Detail) -> GraphProto:
    # ONNX wants one name per value across nested graphs; a subgraph's Data often shares its
    # name with the parent's tensor, so a subgraph's values carry the subgraph's name first.
    scope = "" if graph.parent_graph is None else f"{graph.name}/"
    out = GraphProto(name=graph.name)
    out.node.extend(_node(n, scope, detail) for n in graph.topological_sort())
    net_output = graph.output_node
    if net_output is not None:
        out.output.extend(_value_info(scope + a.peer.label,
                                      a.peer.owner.op_desc.output_descs[a.peer.idx])
                          for a in net_output.in_data_anchors if a.peer is not None)
    return out


def _node(node: Node, scope: str, detail: Detail) -> NodeProto:
    op = op_def(node)
    proto = NodeProto(name=node.name, op_type=node.type, domain=GE_DOMAIN)
    proto.input.extend(scope + name if name else name for name in op.input)
    proto.output.extend(f"{scope}{node.name}:{a.idx}" for a in node.out_data_anchors if a.peers)
    if node.out_control_anchor.peers:
        proto.output.append(f"{scope}{node.name}:{CONTROL_INDEX}")
    attrs = [_subgraph(node.graph.root.subgraph(name), detail) for name in op.subgraph_name]
    if detail != Detail.STRUCTURE:
        attrs += [*_desc_attrs("input", node.op_desc.input_descs),
                  *_desc_attrs("output", node.op_desc.output_descs), *_member_attrs(op)]
        for name, attr in sorted(op.attr.items()):
            attrs += _attr_def(name, attr, detail)
    proto.attribute.extend(sorted(attrs, key=lambda a: a.name))
    return proto


def _subgraph(sub: ComputeGraph, detail: Detail) -> AttributeProto:
    attr = AttributeProto(name=sub.name, type=_A.GRAPH)
    attr.g.CopyFrom(_graph(sub, detail))
    return attr


def _desc_attrs(kind: str, descs: list[GeTensorDesc]) -> list[AttributeProto]:
    """GE's ProcessTensorDescImpl: ``<kind>_desc_nums`` and per desc its dtype, shape and
    layout, with their origin_ twins."""
    out = [_attr(f"{kind}_desc_nums", _A.INT, len(descs))]
    for i, d in enumerate(descs):
        origin_shape = d.origin_shape if d.origin_shape is not None else d.shape
        origin_format = d.origin_format if d.origin_format is not None else d.format
        for name, kind_, value in (
                ("dtype", _A.STRING, d.dtype.name), ("origin_dtype", _A.STRING, d.dtype.name),
                ("shape", _A.INTS, d.shape.dims), ("origin_shape", _A.INTS, origin_shape.dims),
                ("layout", _A.STRING, _layout(d.format)),
                ("origin_layout", _A.STRING, _layout(origin_format))):
            out.append(_attr(f"{kind}_desc_{name}:{i}", kind_, value))
    return out


def _member_attrs(op: pb.OpDef) -> list[AttributeProto]:
    """GE's AddCommonAttrIntoProto: the OpDesc members its OpDef keeps in fields."""
    out = [_attr("stream_id", _A.INT, op.stream_id)] if op.HasField("stream_id") else []
    for name in ("input_i", "output_i", "workspace", "workspace_bytes"):
        values = getattr(op, name)
        if values:
            out.append(_attr(name, _A.INTS, values))
    return out


def _attr_def(name: str, attr: pb.AttrDef, detail: Detail) -> list[AttributeProto]:
    """GE's AddAttrProtoForAttrsFromAttrMap: one AttrDef as zero or more ONNX attributes."""
    full = detail == Detail.FULL
    kind = attr.WhichOneof("value")
    if kind == "t":
        desc = attr.t.desc
        out = [_attr(f"{name}_desc_dtype", _A.STRING, pb.DataType.Name(desc.dtype)),
               _attr(f"{name}_desc_shape", _A.INTS, desc.shape.dim),
               _attr(f"{name}_desc_layout", _A.STRING, desc.layout)]
        return out + ([_attr(f"{name}_data", _A.STRING, attr.t.data)] if full else [])
    if kind == "s":
        return [_attr(name, _A.STRING, attr.s)] if full else []
    if kind in ("i", "b"):
        return [_attr(name, _A.INT, int(getattr(attr, kind)))]
    if kind == "f":
        return [_attr(name, _A.FLOAT, attr.f)]
    if kind == "list":
        lv = attr.list
        if lv.val_type == _LV.VT_LIST_STRING:
            return [_attr(name, _A.STRINGS, lv.s)] if full else []
        if lv.val_type == _LV.VT_LIST_FLOAT:
            return [_attr(name, _A.FLOATS, lv.f)]
        if lv.val_type in (_LV.VT_LIST_INT, _LV.VT_LIST_BOOL):
            return [_attr(name, _A.INTS, [int(v) for v in (lv.i or lv.b)])]
    return []   # GE writes no ONNX form for the other kinds (graphs, tensor lists ...)


def _attr(name: str, kind: int, value: Any) -> AttributeProto:
    attr = AttributeProto(name=name, type=kind)
    if kind == _A.INT:
        attr.i = value
    elif kind == _A.FLOAT:
        attr.f = value
    elif kind == _A.STRING:
        attr.s = value.encode() if isinstance(value, str) else value
    else:
        field = {_A.INTS: attr.ints, _A.FLOATS: attr.floats, _A.STRINGS: attr.strings}[kind]
        field.extend(value)
    return attr


def _value_info(name: str, desc: GeTensorDesc) -> ValueInfoProto:
    info = ValueInfoProto(name=name)
    tensor = info.type.tensor_type
    tensor.elem_type = _elem_type(desc.dtype)
    if not desc.shape.is_unknown_rank:
        for d in desc.shape.dims:
            tensor.shape.dim.add(dim_value=d)
    return info


def _elem_type(dtype: DataType) -> int:
    if dtype == DataType.DT_STRING:
        return TensorProto.STRING
    try:
        return onnx.helper.np_dtype_to_tensor_dtype(dtype.to_numpy())
    except (TypeError, KeyError, ValueError):
        return TensorProto.UNDEFINED


def _layout(fmt: Any) -> str:
    return fmt.name.removeprefix("FORMAT_")

