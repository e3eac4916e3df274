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

import copy
import os
from contextlib import contextmanager
from types import MappingProxyType
from typing import Callable, Iterator, Mapping, Sequence

import onnx
from google.protobuf.message import DecodeError
from onnx import AttributeProto, GraphProto, NodeProto, TensorProto, ValueInfoProto

from ge_core.gc_pause import gc_paused
from ge_core.graph import ComputeGraph, GeTensor, GeTensorDesc, Node, OpDesc, OutDataAnchor
from ge_core.graph.attr_names import ATTR_NAME_INDEX, ATTR_NAME_WEIGHTS, OPSET, SOURCE
from ge_core.graph.ge_tensor import ABSENT_DESC, UNKNOWN_DESC
from ge_core.graph.graph_clone import copied_one_level, deep_copy
from ge_core.ops import (InferShapeError, infer_node, is_supported,
                         qualified_type, supported_ops)
from ge_core.ops.graph_io import GE_NODE_TYPES
from ge_core.ops.shape_rules import ShapeError
from ge_core.passes.graph_pass import POSITION_NODES
from ge_core.parser.model_checker import NodeFields, check_model, default_opset, infer_types
from ge_core.parser.onnx_types import attr_value, constant_value, tensor_desc, tensor_value
from ge_core.parser.parse_error import ParseError


def parse_onnx(src: str | os.PathLike | onnx.ModelProto, name: str | None = None) -> ComputeGraph:
    """Build the ComputeGraph of an ONNX model file (or an in-memory ModelProto). Raises only
    ParseError."""
    parsing = Parsing(src, name)
    with gc_paused():   # the checker's reads of the nodes live on into the build
        for _ in parsing.steps():
            pass
    return parsing.graph


@contextmanager
def _said_as_parse_error(source: str) -> Iterator[None]:
    """ParseError passes; any other exception is a bug of ours on a model nobody foresaw, said
    as such, in one line."""
    try:
        yield
    except ParseError:
        raise
    except Exception as exc:
        raise ParseError(source, f"internal error: {type(exc).__name__}: {exc}") from exc


_BIG_WEIGHT = 1 << 16


def _onnx_shape_inference(model: onnx.ModelProto, source: str, bodies: bool
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
    return infer_types(skeleton, source, bodies)


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
    """Builds one ComputeGraph, the root or a body, from one GraphProto, a loop at a time: its
    inputs, its weights, its nodes, their links, its NetOutput. Nodes are created before any is
    linked, so a body can read any value of its enclosing graphs. ``steps()`` yields every
    POSITION_NODES items, and between two yields the whole state is the attributes (Parsing
    resumes the root's build from a copy taken there).

    ``initializers`` are the root's from the original model (the proto seen here went through
    shape inference without its weights); ``nodes``, the proto's nodes as the checker read them
    (shape inference changes no node, only a body's value types, read from ``proto``)."""

    LOOPS = ("graph inputs", "weights", "nodes", "links", "NetOutput")   # ``_loops()``'s names

    def __init__(self, source: str, graph: ComputeGraph, proto: GraphProto,
                 initializers: Sequence[TensorProto], nodes: Sequence[NodeFields],
                 outer: "_GraphBuilder | None" = None, parent_node: Node | None = None,
                 captured: dict[str, int] | None = None) -> None:
        self.source = source
        self.graph = graph
        self.outer = outer
        self.parent_node = parent_node
        # Outer value name -> the parent node's input carrying it; shared by sibling bodies
        # (then/else) so a value both read enters the parent node once.
        self.captured = captured if captured is not None else {}
        self.producers: dict[str, OutDataAnchor] = {}
        self.n_data = 0
        # what the build reads and never changes: tuples and a read-only mapping, which a copy
        # of a Parsing shares
        self.proto = proto
        self.initializers = initializers
        self.nodes = tuple(nodes)
        initialized = {t.name for t in initializers}
        self.inputs = tuple(v for v in proto.input if v.name not in initialized)
        self.descs = MappingProxyType(_value_descs(proto))
        self.created: list[Node] = []   # a node per one of ``nodes`` made so far
        self.loop = 0   # which of ``_loops()`` is under way
        self.done = 0   # its items done

    def build(self) -> None:
        for _ in self.steps():
            pass

    def steps(self) -> Iterator[None]:
        loops = self._loops()
        while self.loop < len(loops):
            count, visit = loops[self.loop]
            items = count()   # known as the loop begins
            while self.done < items:
                self.done += 1
                visit(self.done - 1)
                if self.done % POSITION_NODES == 0:
                    yield
            self.loop, self.done = self.loop + 1, 0

    @property
    def under_way(self) -> str:
        """The loop under way, by name."""
        return self.LOOPS[min(self.loop, len(self.LOOPS) - 1)]

    def _loops(self) -> list[tuple[Callable[[], int], Callable[[int], object]]]:
        """(how many items, asked as the loop begins, and the visit of the i-th) per loop, in
        order."""
        return [(lambda: len(self.inputs), self._add_input),
                (lambda: len(self.initializers), self._add_initializer),
                (lambda: len(self.nodes), self._add_node),
                (lambda: len(self.created), self._link_node),
                (lambda: 1, lambda _: self._add_net_output())]

    def _add_input(self, i: int) -> None:
        value = self.inputs[i]
        self._add_data(value.name, self._input_desc(value))

    def _add_initializer(self, i: int) -> None:
        tensor = self.initializers[i]
        self._add_const(tensor.name, self._tensor(tensor, tensor.name), tensor.name)

    def _add_node(self, i: int) -> None:
        self.created.append(self._add_op(self.nodes[i], i, self.descs))

    def _link_node(self, i: int) -> None:
        fields = self.nodes[i]
        self._link(fields, self.created[i], self.proto.node[i] if fields.has_graph else None)

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

    def _add_op(self, fields: NodeFields, i: int, descs: Mapping[str, GeTensorDesc]) -> Node:
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
            sub = ComputeGraph(self.graph.unique_subgraph_name(f"{node.name}_{attr.name}"))
            self.graph.add_subgraph(node, sub)
            node.op_desc.set_attr(attr.name, sub.name)
            _GraphBuilder(self.source, sub, attr.g, attr.g.initializer,
                          [NodeFields.of(n) for n in attr.g.node], self, node, captured).build()

    def _add_net_output(self) -> None:
        outputs = self.proto.output
        op = OpDesc(self.graph.unique_name("NetOutput"), "NetOutput", len(outputs), 0)
        op.input_names = [value.name for value in outputs]
        for k, value in enumerate(outputs):
            if value.name in self.descs:
                op.input_descs[k] = self.descs[value.name]
        node = self.graph.add_node(op)
        for k, value in enumerate(outputs):
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


@copied_one_level   # see _GraphBuilder: its dicts and list of nodes are all a copy must copy
class Parsing(_GraphBuilder):
    """One parse of an ONNX model (``parse_onnx``) as a resumable walk, as Partitioning is one
    partition: ``steps()`` builds the root graph and then runs our InferShape over it, node by
    node, yielding every POSITION_NODES items; a copy taken at a yield goes on with ``steps()``
    to the same graph and trace (a debugger's checkpoints inside the parse: a 40k-node model's
    is 170k ticks, a NodeAdded a node, an AnchorLinked an edge, a DescUpdated an output, which
    took a step back 2 s to re-run from the start). The model's checks and ONNX's shape
    inference come first, in the constructor, and make no event; they count as a node's work
    each (TraceBus.work), and ``steps()`` yields first right after them, so a debugger's first
    checkpoint is there (at 40k nodes they take 0.7 s)."""

    LOOPS = (*_GraphBuilder.LOOPS, "InferShape")

    def __init__(self, src: str | os.PathLike | onnx.ModelProto, name: str | None = None) -> None:
        source, path, model = _load(src)
        with _said_as_parse_error(source):
            with gc_paused():   # the checker's reads of the nodes live on into the build
                nodes = check_model(model, source)
            inferred, self.refusal = _onnx_shape_inference(
                model, source, any(node.has_graph for node in nodes))
            stem = os.path.splitext(os.path.basename(path))[0] if path else ""
            # made with its opset and source, before anyone can watch it: no edit of a graph
            graph = ComputeGraph(name or model.graph.name or stem or "graph",
                                 attrs={OPSET: default_opset(model),
                                        **({SOURCE: path} if path else {})})
            super().__init__(source, graph, inferred.graph, model.graph.initializer, nodes)
        self.order: tuple[Node, ...] | None = None   # InferShape's, once the build is done
        self.begun = False   # past the position right after the constructor's work
        graph.bus.work += len(nodes)

    def steps(self) -> Iterator[None]:
        with _said_as_parse_error(self.source):
            if not self.begun:
                self.begun = True
                yield
            yield from super().steps()
            if self.refusal is not None:
                raise self.refusal

    def _loops(self) -> list[tuple[Callable[[], int], Callable[[int], object]]]:
        return [*super()._loops(), (lambda: len(self._infer_order()), self._infer)]

    def _add_node(self, i: int) -> None:
        super()._add_node(i)
        if len(self.created) == len(self.nodes):
            # the last: the root's nodes and what produces each value are all made (only a
            # body captures a value later), so a copy shares them rather than copy 100k items
            self.created, self.producers = tuple(self.created), MappingProxyType(self.producers)

    def _infer_order(self) -> tuple[Node, ...]:
        if self.order is None:
            self.order = tuple(self.graph.topological_sort())
        return self.order

    def _infer(self, i: int) -> None:
        try:
            infer_node(self.graph, self.order[i])
        except InferShapeError as err:
            # Our InferShape's own refusal names the shapes; where it only stumbled, ONNX's
            # reason for refusing the node says more.
            ours = ParseError(self.source, err.reason, err.node_name, err.op_type)
            raise (self.refusal if self.refusal and not isinstance(err.__cause__, ShapeError)
                   else ours) from err

    def __deepcopy__(self, memo: dict) -> "Parsing":
        """A copy of its own (a look beside the run; a checkpoint's copies it one level, as
        copied_one_level says): what the build changes is copied, the graph through the memo,
        and the rest shared, as the model's protos are never changed."""
        new = copy.copy(self)
        memo[id(self)] = new
        for name in ("graph", "captured", "created", "order"):
            setattr(new, name, deep_copy(getattr(self, name), memo))
        producers = deep_copy(dict(self.producers), memo)   # a dict, or read-only once complete
        new.producers = producers if type(self.producers) is dict \
            else MappingProxyType(producers)
        return new


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
