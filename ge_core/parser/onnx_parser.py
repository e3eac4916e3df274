"""ONNX model -> ComputeGraph (GE's OnnxModelParser).

The graph it builds:
- each graph input becomes a Data node (attr ``index``, in input order), each initializer and
  each Constant node a Const node (attr ``value``), each other ONNX node a node of its op type,
  and the graph outputs the inputs of one NetOutput node, in order;
- ``input_names``/``output_names`` keep the ONNX tensor names, so a desc can be traced back;
- If/Loop bodies become subgraphs of their node (If: subgraph 0 is then, 1 is else). A value a
  body reads from an enclosing graph becomes an extra input of the parent node, appended after
  its ONNX inputs, read in the body by a Data node whose ``parent_node_index`` names that input.
Shapes come from our own InferShape (ge_core.ops), run over the finished graph; ONNX's shape
inference only seeds the descs. The model is checked first (model_checker.py): a bad one is a
ParseError naming what is at fault, the only exception the parser raises for bad input.
"""
from __future__ import annotations

import os
from typing import Sequence

import onnx
from google.protobuf.message import DecodeError
from onnx import AttributeProto, GraphProto, NodeProto, TensorProto, ValueInfoProto

from ge_core.gc_pause import gc_paused
from ge_core.graph import ComputeGraph, GeTensor, GeTensorDesc, Node, OpDesc, OutDataAnchor
from ge_core.graph.attr_names import ATTR_NAME_INDEX, ATTR_NAME_WEIGHTS, OPSET, SOURCE
from ge_core.graph.ge_tensor import ABSENT_DESC, UNKNOWN_DESC
from ge_core.ops import (InferShapeError, infer_graph, is_supported,
                         qualified_type, supported_ops)
from ge_core.ops.graph_io import GE_NODE_TYPES
from ge_core.ops.shape_rules import ShapeError
from ge_core.parser.model_checker import NodeFields, check_model, default_opset, infer_types
from ge_core.parser.onnx_types import attr_value, constant_value, tensor_desc, tensor_value
from ge_core.parser.parse_error import ParseError


def parse_onnx(src: str | os.PathLike | onnx.ModelProto, name: str | None = None) -> ComputeGraph:
    """Build the ComputeGraph of an ONNX model file (or an in-memory ModelProto). Raises only
    ParseError."""
    source, path, model = _load(src)
    try:
        with gc_paused():   # the checker's reads of the nodes live on into the build
            return _parse(source, path, model, check_model(model, source), name)
    except ParseError:
        raise
    except Exception as exc:   # a bug of ours on a model nobody foresaw: said as such, one line
        raise ParseError(source, f"internal error: {type(exc).__name__}: {exc}") from exc


def _parse(source: str, path: str | None, model: onnx.ModelProto, nodes: list[NodeFields],
           name: str | None) -> ComputeGraph:
    inferred, refusal = _onnx_shape_inference(model, source)
    stem = os.path.splitext(os.path.basename(path))[0] if path else ""
    # made with its opset and source, before anyone can watch it: no edit of a graph
    graph = ComputeGraph(name or model.graph.name or stem or "graph",
                         attrs={OPSET: default_opset(model), **({SOURCE: path} if path else {})})
    _GraphBuilder(source, graph).build(inferred.graph, model.graph.initializer, nodes)
    try:
        infer_graph(graph)
    except InferShapeError as err:
        # Our InferShape's own refusal names the shapes; where it only stumbled, ONNX's
        # reason for refusing the node says more.
        ours = ParseError(source, err.reason, err.node_name, err.op_type)
        raise (refusal if refusal and not isinstance(err.__cause__, ShapeError) else ours) \
            from err
    if refusal is not None:
        raise refusal
    return graph


_BIG_WEIGHT = 1 << 16


def _onnx_shape_inference(model: onnx.ModelProto, source: str
                          ) -> tuple[onnx.ModelProto, ParseError | None]:
    """The model's graph with ONNX's inferred types, as a seed for our own InferShape, with its
    large initializers left as dims only. Shape inference serialises the whole model and never
    reads large weights: VGG-19 with real weights spent 5.9 of its 6.5 s parse there. The
    weights themselves are read from the original model. Also ONNX's refusal of the model,
    if it has one (model_checker.infer_types)."""
    skeleton = onnx.ModelProto(ir_version=model.ir_version)
    skeleton.opset_import.extend(model.opset_import)
    skeleton.functions.extend(model.functions)
    g, src = skeleton.graph, model.graph
    g.name = src.name
    for field in ("node", "input", "output", "value_info", "sparse_initializer"):
        getattr(g, field).extend(getattr(src, field))
    for init in src.initializer:
        if init.ByteSize() > _BIG_WEIGHT:
            g.initializer.add(name=init.name, data_type=init.data_type, dims=init.dims)
        else:
            g.initializer.append(init)
    return infer_types(skeleton, source)


def _load(src: str | os.PathLike | onnx.ModelProto) -> tuple[str, str | None, onnx.ModelProto]:
    """(name for messages, file path or None, model)."""
    if isinstance(src, onnx.ModelProto):
        return f"<model {src.graph.name or 'unnamed'}>", None, src
    path = os.fspath(src)
    if not os.path.exists(path):
        raise ParseError(path, "no such file")
    try:
        model = _read_model(path)
    except Exception as err:  # noqa: BLE001 -- protobuf DecodeError, OSError, external data...
        raise ParseError(path, f"not a readable ONNX model ({_unreadable(err)})") from None
    if not model.HasField("graph"):
        raise ParseError(path, "not an ONNX model (it has no graph)")
    return path, path, model


# How protobuf writes a TensorProto's data_location = EXTERNAL: field 14 as a varint (tag 0x70),
# value 1. A file without these two bytes has no tensor whose data lies in another file.
_EXTERNAL_DATA_MARK = b"\x70\x01"


def _read_model(path: str) -> onnx.ModelProto:
    """onnx.load. Its search for tensors kept in external files walks every node's attributes
    and every initializer in Python (a tenth of a light model's parse): in a binary file it is
    made only where the file holds the bytes such a tensor is written with."""
    ext = os.path.splitext(path)[1]
    if onnx.serialization.registry.get_format_from_file_extension(ext) not in (None, "protobuf"):
        return onnx.load(path)   # a text format: read as onnx.load reads it
    with open(path, "rb") as f:
        data = f.read()
    model = onnx.load_model_from_string(data)
    if _EXTERNAL_DATA_MARK in data:
        onnx.load_external_data_for_model(model, os.path.dirname(path))
    return model


PROTOBUF_DEPTH = 100   # protobuf's default recursion limit (upb_DecodeOptions_MaxDepth)


def _unreadable(err: Exception) -> str:
    """Why onnx.load failed, in the user's terms (protobuf's DecodeError names no class)."""
    if isinstance(err, DecodeError) and "MaxDepth" in str(err):   # upb's recursion limit
        return (f"its messages nest deeper than protobuf's limit of {PROTOBUF_DEPTH} levels; "
                f"an If, Loop or Scan body takes 3")
    if isinstance(err, DecodeError):
        return "its protobuf bytes do not decode: truncated or corrupt"
    if isinstance(err, OSError):
        return err.strerror or str(err)
    return str(err)


class _GraphBuilder:
    """Builds one ComputeGraph, the root or a body, from one GraphProto. Nodes are created
    first and linked second, so a body can read any value of its enclosing graphs."""

    def __init__(self, source: str, graph: ComputeGraph, outer: "_GraphBuilder | None" = None,
                 parent_node: Node | None = None, captured: dict[str, int] | None = None) -> None:
        self.source = source
        self.graph = graph
        self.outer = outer
        self.parent_node = parent_node
        # Outer value name -> the parent node's input carrying it; shared by sibling bodies
        # (then/else) so a value both read enters the parent node once.
        self.captured = captured if captured is not None else {}
        self.producers: dict[str, OutDataAnchor] = {}
        self.n_data = 0

    def build(self, proto: GraphProto, initializers: Sequence[TensorProto] | None = None,
              nodes: list[NodeFields] | None = None) -> None:
        """``initializers`` overrides the proto's own (the root's come from the original
        model: the proto seen here went through shape inference without its weights);
        ``nodes``, the proto's nodes as the checker read them (from the original model:
        shape inference changes no node, only a body's value types, read from ``proto``)."""
        initializers = proto.initializer if initializers is None else initializers
        nodes = [NodeFields.of(node) for node in proto.node] if nodes is None else nodes
        descs = _value_descs(proto)
        initialized = {t.name for t in initializers}
        for value in proto.input:
            if value.name not in initialized:
                self._add_data(value.name, self._input_desc(value))
        for tensor in initializers:
            self._add_const(tensor.name, self._tensor(tensor, tensor.name), tensor.name)
        created = [(fields, self._add_op(fields, i, descs)) for i, fields in enumerate(nodes)]
        for i, (fields, node) in enumerate(created):
            self._link(fields, node, proto.node[i] if fields.has_graph else None)
        self._add_net_output(proto, descs)

    # -- nodes -----------------------------------------------------------------------------
    def _add_data(self, tensor: str, desc: GeTensorDesc, **attrs: int) -> OutDataAnchor:
        op = OpDesc(self.graph.unique_name(tensor), "Data", 0, 1,
                    {ATTR_NAME_INDEX: self.n_data, **attrs})
        self.n_data += 1
        op.output_descs[0], op.output_names[0] = desc, tensor
        return self._register(op).out_data_anchor(0)

    def _add_const(self, name: str, value: GeTensor, tensor: str) -> Node:
        op = OpDesc(self.graph.unique_name(name), "Const", 0, 1, {ATTR_NAME_WEIGHTS: value})
        op.output_descs[0], op.output_names[0] = value.desc, tensor
        return self._register(op)

    def _register(self, op: OpDesc) -> Node:
        node = self.graph.add_node(op)
        for anchor, tensor in zip(node.out_data_anchors, op.output_names):
            if tensor:  # an empty name is an optional output the model does not use
                self.producers[tensor] = anchor
        return node

    def _add_op(self, fields: NodeFields, i: int, descs: dict[str, GeTensorDesc]) -> Node:
        op_type = qualified_type(fields.domain, fields.op_type)
        name = self.graph.unique_name(fields.name or f"{fields.op_type}_{i}")
        if op_type == "Constant":
            try:
                return self._add_const(name, constant_value(fields.attrs), fields.outputs[0])
            except ValueError as err:
                raise self._error(str(err), name, op_type) from err
        if not is_supported(op_type) or op_type in GE_NODE_TYPES:
            n_onnx_ops = len(supported_ops()) - len(GE_NODE_TYPES)
            raise self._error(f"unsupported op ({n_onnx_ops} ONNX ops are supported; "
                              f"`gewb ops` lists them)", name, op_type)
        try:
            attrs = {a.name: attr_value(a) for a in fields.attrs
                     if a.type != AttributeProto.GRAPH}
        except ValueError as err:
            raise self._error(str(err), name, op_type) from err
        # the descs and names made here directly, from the checker's lists (copied: a body's
        # captured values add inputs to the op)
        inputs, outputs = list(fields.inputs), list(fields.outputs)
        op = OpDesc(name, op_type, 0, 0, attrs)
        op.input_names, op.output_names = inputs, outputs
        # an empty name is an optional input left out
        op.input_descs = [UNKNOWN_DESC if tensor else ABSENT_DESC for tensor in inputs]
        op.output_descs = [descs[tensor] if tensor in descs else UNKNOWN_DESC
                           for tensor in outputs]
        return self._register(op)

    def _link(self, fields: NodeFields, node: Node, proto: NodeProto | None) -> None:
        """``proto``: the node's own proto, for its bodies (None: it has none)."""
        for k, tensor in enumerate(fields.inputs):
            if tensor:
                self._source(tensor, node).link_to(node.in_data_anchor(k))
        if proto is None:
            return
        # GE's If has its then branch as subgraph 0 and its else branch as subgraph 1.
        bodies = sorted((a for a in proto.attribute if a.type == AttributeProto.GRAPH),
                        key=lambda a: a.name != "then_branch")
        captured: dict[str, int] = {}
        for attr in bodies:
            sub = ComputeGraph(self._subgraph_name(f"{node.name}_{attr.name}"))
            self.graph.add_subgraph(node, sub)
            node.op_desc.set_attr(attr.name, sub.name)
            _GraphBuilder(self.source, sub, self, node, captured).build(attr.g)

    def _add_net_output(self, proto: GraphProto, descs: dict[str, GeTensorDesc]) -> None:
        op = OpDesc(self.graph.unique_name("NetOutput"), "NetOutput", len(proto.output), 0)
        op.input_names = [value.name for value in proto.output]
        for k, value in enumerate(proto.output):
            if value.name in descs:
                op.input_descs[k] = descs[value.name]
        node = self.graph.add_node(op)
        for k, value in enumerate(proto.output):
            self._source(value.name, node).link_to(node.in_data_anchor(k))

    # -- names across scopes ----------------------------------------------------------------
    def _source(self, tensor: str, consumer: Node) -> OutDataAnchor:
        anchor = self._resolve(tensor)
        if anchor is None:
            raise self._error(f"input {tensor!r} has no producer", consumer.name, consumer.type)
        return anchor

    def _resolve(self, tensor: str) -> OutDataAnchor | None:
        """The anchor producing ``tensor`` in this graph, capturing it from an enclosing graph
        if that is where it lives."""
        anchor = self.producers.get(tensor)
        if anchor is not None or self.outer is None:
            return anchor
        outer_anchor = self.outer._resolve(tensor)
        if outer_anchor is None:
            return None
        parent = self.parent_node
        if tensor not in self.captured:
            parent_input = parent.add_input()
            outer_anchor.link_to(parent_input)
            parent.op_desc.set_input_name(parent_input.idx, tensor)
            self.captured[tensor] = parent_input.idx
        desc = outer_anchor.owner.op_desc.output_descs[outer_anchor.idx]
        return self._add_data(tensor, desc, parent_node_index=self.captured[tensor])

    def _subgraph_name(self, base: str) -> str:
        taken = {g.name for g in self.graph.subgraphs}
        name, n = base, 0
        while name in taken:
            n += 1
            name = f"{base}_{n}"
        return name

    # -- values ------------------------------------------------------------------------------
    def _input_desc(self, value: ValueInfoProto) -> GeTensorDesc:
        try:
            desc = tensor_desc(value.type)
        except ValueError as err:
            raise self._error(f"graph input {value.name!r}: {err}") from err
        if desc is None:
            raise self._error(f"graph input {value.name!r} is a map (map types are not "
                              f"supported)")
        return desc

    def _tensor(self, proto: onnx.TensorProto, name: str) -> GeTensor:
        try:
            return tensor_value(proto)
        except ValueError as err:
            raise self._error(f"initializer {name!r}: {err}") from err

    def _error(self, reason: str, node: str | None = None,
               op_type: str | None = None) -> ParseError:
        return ParseError(self.source, reason, node, op_type)



def _value_descs(proto: GraphProto) -> dict[str, GeTensorDesc]:
    """Tensor name -> desc from the graph's declared and ONNX-inferred types. Types GE cannot
    hold are left out: the op that makes them is reported instead. Values share a handful of
    types (densenet121: 2.6k values, 172 types), so each type's bytes are read into a desc
    once, and the readers share it (descs are frozen)."""
    descs = {}
    by_type: dict[bytes, GeTensorDesc | None] = {}
    for value in (*proto.input, *proto.value_info, *proto.output):
        type_proto = value.type
        key = type_proto.SerializeToString()
        if key in by_type:
            desc = by_type[key]
        else:
            try:
                desc = tensor_desc(type_proto)
            except ValueError:
                desc = None
            by_type[key] = desc
        if desc is not None:
            descs[value.name] = desc
    return descs
