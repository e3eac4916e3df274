"""The ONNX model checked before GE's graph is built from it, so that every way a file can be bad
is one ParseError naming the graph, node, attribute or tensor at fault, and nothing downstream
(InferShape, the passes, the kernels) ever meets a malformed node:

- names: every name is UTF-8 (protobuf hands back bytes for one that is not);
- tensors (initializers and tensor attributes): a defined element type, no negative dim, and
  as much data as the dims promise;
- nodes: as many inputs and outputs as the op's schema allows, its required inputs not left
  empty, each attribute one the schema names and of the schema's kind, its required attributes
  present, a graph attribute holding a graph;
- graphs: each value produced once, every value read produced in scope, no cycle, graph
  inputs of a known element type;
- then ONNX's own type and shape inference in strict mode, which knows each op's constraints
  (Conv's strides positive, Gemm's operands 2-D, Cast's `to`, the element types each input
  takes...).

Arity and attribute kinds come from the ONNX operator schemas (onnx.defs), not from hand lists.
A node of another domain, or of an op GE does not support, is left to the builder, which names
it as such.
"""
from __future__ import annotations

import functools
import math
import re
from typing import Callable, Iterable, Iterator, NamedTuple

import onnx
from onnx import AttributeProto, GraphProto, NodeProto, TensorProto, defs, helper

from ge_core.ops import DEFAULT_DOMAINS, is_supported
from ge_core.ops.op_registry import ML_DOMAIN, qualified_type
from ge_core.ops.graph_io import GE_NODE_TYPES
from ge_core.parser.parse_error import ParseError

_A = AttributeProto
_GRAPH_KINDS = (_A.GRAPH, _A.GRAPHS)
_TENSOR_KINDS = (_A.TENSOR, _A.TENSORS)
# Element types packed below a byte: their data is not one element an entry.
_PACKED = frozenset(getattr(TensorProto, n) for n in ("INT4", "UINT4", "FLOAT4E2M1", "INT2",
                                                      "UINT2") if hasattr(TensorProto, n))
_COMPLEX = frozenset({TensorProto.COMPLEX64, TensorProto.COMPLEX128})
# protobuf builds the enum's list of values afresh at each values() call: once per tensor
_DTYPES = frozenset(TensorProto.DataType.values())
_SINGLE = defs.OpSchema.FormalParameterOption.Single
_VARIADIC = defs.OpSchema.FormalParameterOption.Variadic


# Attribute values on which ONNX's shape inference, run after the checks, kills the process (a
# segfault or an abort in its C++, which no except can catch: the app would vanish) instead of
# refusing the model: found by running it over the node suite's cases with each int attribute
# set to out-of-range values, each in a child process. op -> (int attributes, the node's output
# count) -> the reason, or None.
_KILLS_ONNX_INFERENCE: dict[str, Callable[[dict[str, int], int], str | None]] = {
    "GatherND": lambda a, _: f"batch_dims {a['batch_dims']} is negative"
    if a.get("batch_dims", 0) < 0 else None,
    "LayerNormalization": lambda a, _: f"axis {a['axis']} is out of range"
    if not -2 ** 31 <= a.get("axis", -1) < 2 ** 31 else None,
    "Split": lambda a, outputs: f"num_outputs {a['num_outputs']} is not the node's {outputs} "
    f"outputs" if a.get("num_outputs", outputs) != outputs else None,
}


_ONNX_DOMAINS = (ML_DOMAIN, "ai.onnx.preview.training")   # ONNX's other op sets
# INT attributes that are a yes or a no in every ONNX op that has one. Another value means
# nothing the spec defines, and readers differ: onnxruntime refused Reshape's allowzero=-4 but
# read ArgMax's keepdims=2 as 0, where Python's truth had made it 1 here.
_FLAGS = frozenset((
    "align_corners", "allowzero", "broadcast", "ceil_mode", "center_point_box",
    "count_include_pad", "detect_negative", "detect_positive", "exclude_outside", "exclusive",
    "fmod", "input_forget", "interleaved", "inverse", "is_case_sensitive", "is_causal",
    "is_test", "keepdims", "largest", "linear_before_reset", "new_axis",
    "noop_with_empty_axes", "onesided", "periodic", "reverse", "saturate",
    "select_last_index", "sorted", "spatial", "storage_order", "training_mode", "transA",
    "transB", "upper"))


_AUTO_PAD = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")
_SCATTER_REDUCTIONS = ("none", "add", "mul", "max", "min")
_LOSS_REDUCTIONS = ("none", "sum", "mean")
_RNN_DIRECTIONS = ("forward", "reverse", "bidirectional")
_SPACE_DEPTH_MODES = ("DCR", "CRD")
_ROUND_MODES = ("up", "down", "nearest")
# STRING attributes the spec gives a list of values for, by op: another value means nothing
# it defines, and the kernels read one as their default or their last branch (a BitShift of
# direction "garbage" shifted right, a Resize of mode "garbage" went linear; onnxruntime
# refuses every one). Where an opset renamed them (GridSample-16's bilinear, -20's linear;
# Upsample-1's bilinear) or added one (Pad-19's wrap, ScatterElements-18's max and min,
# Resize-11's tf_half_pixel_for_nn, -18's half_pixel_symmetric), the names of every opset.
_CHOICES: dict[str, dict[str, tuple[str, ...]]] = {
    **{op: {"auto_pad": _AUTO_PAD} for op in ("AveragePool", "Conv", "ConvInteger",
                                               "ConvTranspose", "LpPool", "MaxPool",
                                               "QLinearConv")},
    "BitShift": {"direction": ("RIGHT", "LEFT")},
    "Cast": {"round_mode": _ROUND_MODES},
    "CastLike": {"round_mode": _ROUND_MODES},
    "CausalConvWithState": {"activation": ("silu", "swish", "none")},
    "DepthToSpace": {"mode": _SPACE_DEPTH_MODES},
    "Gelu": {"approximate": ("none", "tanh")},
    "GridSample": {"mode": ("linear", "nearest", "cubic", "bilinear", "bicubic"),
                   "padding_mode": ("zeros", "border", "reflection")},
    **{op: {"direction": _RNN_DIRECTIONS} for op in ("GRU", "LSTM", "RNN")},
    "ImageDecoder": {"pixel_format": ("RGB", "BGR", "Grayscale")},
    "LinearAttention": {"update_rule": ("linear", "gated", "delta", "gated_delta")},
    "NegativeLogLikelihoodLoss": {"reduction": _LOSS_REDUCTIONS},
    "Pad": {"mode": ("constant", "reflect", "edge", "wrap")},
    "Resize": {"mode": ("nearest", "linear", "cubic"),
               "coordinate_transformation_mode": (
                   "half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
                   "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"),
               "nearest_mode": ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"),
               "keep_aspect_ratio_policy": ("stretch", "not_larger", "not_smaller")},
    "RoiAlign": {"mode": ("avg", "max"),
                 "coordinate_transformation_mode": ("half_pixel", "output_half_pixel")},
    "ScatterElements": {"reduction": _SCATTER_REDUCTIONS},
    "ScatterND": {"reduction": _SCATTER_REDUCTIONS},
    "SoftmaxCrossEntropyLoss": {"reduction": _LOSS_REDUCTIONS},
    "SpaceToDepth": {"mode": _SPACE_DEPTH_MODES},
    "StringNormalizer": {"case_change_action": ("LOWER", "UPPER", "NONE")},
    "TensorScatter": {"mode": ("linear", "circular")},
    "TfIdfVectorizer": {"mode": ("TF", "IDF", "TFIDF")},
    "Upsample": {"mode": ("nearest", "linear", "bilinear")},
}


# INT attributes that name a tensor element type (TensorProto.DataType), by op: 0 (UNDEFINED)
# or a number of no type had passed to the build, whose first read of the dtype raised (a
# Cast with to=0 was gewb exec's internal error)
_ELEMENT_TYPES: dict[str, frozenset[str]] = {
    **{op: frozenset({"dtype"}) for op in ("Bernoulli", "EyeLike", "Multinomial", "RandomNormal",
                                           "RandomNormalLike", "RandomUniform",
                                           "RandomUniformLike", "SequenceEmpty")},
    **{op: frozenset({"to"}) for op in ("BitCast", "Cast")},
    **{op: frozenset({"output_datatype"}) for op in ("BlackmanWindow", "HammingWindow",
                                                     "HannWindow", "MelWeightMatrix")},
    **{op: frozenset({"stash_type"}) for op in ("GroupNormalization", "LayerNormalization",
                                                "RMSNormalization", "Range")},
    "Attention": frozenset({"softmax_precision"}),
    "DequantizeLinear": frozenset({"output_dtype"}),
    "QuantizeLinear": frozenset({"output_dtype", "precision"}),
}


def default_opset(model: onnx.ModelProto) -> int:
    """The default domain's opset; a model with none predates IR version 3, which meant 1."""
    return next((o.version for o in model.opset_import if o.domain in DEFAULT_DOMAINS), 1)


def check_model(model: onnx.ModelProto, source: str) -> list[NodeFields]:
    """Raise a ParseError for the first fault found in ``model``; else the root graph's nodes
    as read, so the builder reads no field twice."""
    opset = default_opset(model)
    if opset < 1:
        raise ParseError(source, f"the model imports ONNX opset {opset}: opsets start at 1")
    opsets = {o.domain: o.version for o in model.opset_import}
    return _Checker(source, opset, opsets).graph(model.graph, frozenset(), "graph", root=True)


class _Checker:
    def __init__(self, source: str, opset: int, opsets: dict[str, int]) -> None:
        self.source = source
        self.opset = opset
        self.opsets = opsets   # by domain, as the model imports them

    def fail(self, reason: str, node: str | None = None, op_type: str | None = None
             ) -> ParseError:
        return ParseError(self.source, reason, node, op_type)

    def text(self, value: str | bytes, what: str, node: str | None = None) -> str:
        if isinstance(value, bytes):   # how protobuf returns a string field that is not UTF-8
            raise self.fail(f"{what} {value!r} is not UTF-8", node)
        return value

    def names(self, values: Iterable[str | bytes], kind: str, node: str) -> None:
        """``text`` over a node's input or output names; the reason is made only for a bad one."""
        for k, value in enumerate(values):
            if isinstance(value, bytes):
                self.text(value, f"{kind} {k} name", node)

    # -- graphs --------------------------------------------------------------------------------
    def graph(self, g: GraphProto, outer: frozenset[str], where: str,
              root: bool = False) -> list[NodeFields]:
        """``outer``: the values of the enclosing graphs, which a body may read. Returns the
        graph's nodes as read."""
        where = f"{where} {self.text(g.name, f'{where} name')!r}"
        # Each value's maker as (kind, name), said only in an error: a name a reason is made for
        # only when bad (a light model has thousands of values).
        produced: dict[str, tuple[str, str]] = {}
        initialized = {t.name for t in g.initializer} if root else set()
        for value in g.input:
            name = value.name
            if isinstance(name, bytes):
                self.text(name, f"{where}: an input name")
            if name in produced:
                raise self.fail(f"{where} has two inputs named {name!r}")
            produced[name] = ("input", name)
            if root and name not in initialized:   # an initializer listed as input has its own
                self.input_type(value, name)
        for tensor in g.initializer:
            name = tensor.name
            self.tensor(tensor, f"initializer {name!r}")
            produced.setdefault(name, ("initializer", name))
        for value in (*g.value_info, *g.output):
            if isinstance(value.name, bytes):
                self.text(value.name, f"{where}: a value name")
        nodes = [NodeFields.of(node) for node in g.node]
        labels = [self.label(node, i) for i, node in enumerate(nodes)]
        for node, label in zip(nodes, labels):
            for value in node.outputs:
                if not value:   # an optional output the model does not use
                    continue
                if value in produced:
                    kind, first = produced[value]
                    raise self.fail(f"value {value!r} is produced twice (first by {kind} "
                                    f"{first!r}{f' of {where}' if kind == 'input' else ''})",
                                    label, node.op_type)
                produced[value] = ("node", label)
        scope = outer | produced.keys()
        for node, label in zip(nodes, labels):
            self.node(node, label, scope)
        for value in g.output:
            if value.name not in scope:
                raise self.fail(f"output {value.name!r} of {where} is produced by no node, "
                                f"input or initializer")
        self.acyclic(nodes, labels)
        return nodes

    def input_type(self, value: onnx.ValueInfoProto, name: str) -> None:
        kind = value.type.WhichOneof("value")
        if kind is None:   # what would be fed, and what could run it, is unknown
            raise self.fail(f"graph input {name!r} has no type (ONNX requires a graph input's)")
        if kind != "tensor_type":
            return   # a sequence, an optional, a map: the builder says what it supports
        elem = value.type.tensor_type.elem_type
        if elem not in _DTYPES or elem == TensorProto.UNDEFINED:
            raise self.fail(f"graph input {name!r} has element type {_dtype_name(elem)}")

    def acyclic(self, nodes: list[NodeFields], labels: list[str]) -> None:
        """Kahn's sort over the nodes, a body's reads of this graph's values counted as its
        parent node's inputs; the nodes left over lie on or behind a cycle."""
        producer = {v: i for i, node in enumerate(nodes) for v in node.outputs if v}
        preds = [sorted({producer[v] for v in (_reads(node.inputs, node.attrs) if node.has_graph
                                               else node.inputs) if v in producer})
                 for node in nodes]
        waiting = [len(p) for p in preds]
        succs: list[list[int]] = [[] for _ in nodes]
        for i, p in enumerate(preds):
            for j in p:
                succs[j].append(i)
        ready = [i for i, n in enumerate(waiting) if n == 0]
        done = 0
        while ready:
            i = ready.pop()
            done += 1
            for j in succs[i]:
                waiting[j] -= 1
                if waiting[j] == 0:
                    ready.append(j)
        if done == len(nodes):
            return
        # Walk back from a node left over through predecessors also left over until one repeats.
        path, at = [], next(i for i, n in enumerate(waiting) if n > 0)
        while at not in path:
            path.append(at)
            at = next(j for j in preds[at] if waiting[j] > 0)
        loop = [labels[i] for i in reversed(path[path.index(at):])]
        raise self.fail(f"the graph has a cycle: {' -> '.join(loop + loop[:1])}",
                        labels[at], nodes[at].op_type)

    # -- nodes ---------------------------------------------------------------------------------
    def label(self, node: NodeFields, i: int) -> str:
        """The node's name as the builder will give it (its own, or op type and index)."""
        op_type, domain, name = node.op_type, node.domain, node.name
        if bytes in (type(op_type), type(domain), type(name)):   # the reason is made only here
            self.text(op_type, f"node #{i}: op type")
            self.text(domain, f"node #{i}: domain")
            self.text(name, f"node #{i}: name")
        return name or f"{op_type}_{i}"

    def node(self, node: NodeFields, label: str, scope: frozenset[str]) -> None:
        op_type = node.op_type
        inputs = node.inputs
        self.names(inputs, "input", label)
        for value in inputs:
            if value and value not in scope:
                raise self.fail(f"input {value!r} has no producer (no node, graph input or "
                                f"initializer in scope makes it)", label, op_type)
        self.names(node.outputs, "output", label)
        for attr in node.attrs:
            self.attr_text(attr, label)
        domain = node.domain
        if domain in DEFAULT_DOMAINS:
            domain, opset = "", self.opset
        elif domain in _ONNX_DOMAINS:   # ONNX's inference reads their ops too (a LabelEncoder
            opset = self.opsets.get(domain)   # given four inputs for its one: a segfault)
        else:
            return
        if op_type in GE_NODE_TYPES \
                or not (is_supported(qualified_type(domain, op_type)) or op_type == "Constant") \
                or not _has_schema(op_type, domain):   # GE's own ops (HcomAllReduce ...) have none
            return   # the builder refuses it by name, or our InferShape checks it
        if opset is None:
            raise self.fail(f"the model imports no {domain} opset", label, op_type)
        schema = _schema(op_type, opset, domain)
        if schema is None:
            raise self.fail(f"{domain or 'ONNX'} opset {opset} has no {op_type}", label, op_type)
        self.arity(node, label, schema)
        self.attributes(node, label, schema)
        if op_type in _KILLS_ONNX_INFERENCE:
            reason = _KILLS_ONNX_INFERENCE[op_type](
                {a.name: a.i for a in node.attrs if a.type == _A.INT}, len(node.outputs))
            if reason:
                raise self.fail(reason, label, op_type)
        for attr in node.attrs:
            if attr.type not in _GRAPH_KINDS:
                continue
            for k, body in enumerate(_graphs(attr)):
                which = f"{attr.name}[{k}]" if attr.type == _A.GRAPHS else attr.name
                self.graph(body, scope, f"node {label!r} {which}")

    def arity(self, node: NodeFields, label: str, schema: _Schema) -> None:
        for kind, given, formal, least, most in (
                ("input", node.inputs, schema.inputs, schema.min_input, schema.max_input),
                ("output", node.outputs, schema.outputs, schema.min_output, schema.max_output)):
            if least <= len(given) <= most and all(given):
                continue
            names = ", ".join(p.name for p in formal)
            if len(given) < least:
                raise self.fail(f"{node.op_type} takes at least {least} {kind}(s) ({names}), "
                                f"the node has {len(given)}", label, node.op_type)
            if len(given) > most:
                raise self.fail(f"{node.op_type} takes at most {most} {kind}(s) ({names}), "
                                f"the node has {len(given)}", label, node.op_type)
            for k, value in enumerate(given):
                param = formal[min(k, len(formal) - 1)]
                if not value and (param.option == _SINGLE or kind == "input"
                                  and param.option == _VARIADIC):
                    # ONNX's checker lets a variadic input be empty; no op reads one (Max of
                    # x, nothing, y), and no model in ONNX's suites writes one
                    raise self.fail(f"{kind} {k} ({param.name}) is required but left empty",
                                    label, node.op_type)

    def attributes(self, node: NodeFields, label: str, schema: _Schema) -> None:
        seen = set()
        default = node.domain in DEFAULT_DOMAINS
        choices = _CHOICES.get(node.op_type, {}) if default else {}
        element_types = _ELEMENT_TYPES.get(node.op_type, ()) if default else ()
        for attr in node.attrs:
            name = attr.name   # each protobuf field read once
            expected = schema.attributes.get(name)
            if name in seen:
                raise self.fail(f"attribute {name!r} is given twice", label, node.op_type)
            seen.add(name)
            if expected is None and name.startswith("_"):
                continue   # GE's private attributes (_performance_prior ...) ride on any op
            if expected is None:
                known = ", ".join(sorted(schema.attributes)) or "none"
                raise self.fail(f"{node.op_type} (opset {self.opset}) has no attribute "
                                f"{name!r} (it has: {known})", label, node.op_type)
            if attr.ref_attr_name:
                raise self.fail(f"attribute {name!r} refers to a function's attribute "
                                f"outside a function", label, node.op_type)
            want, kind = expected.type, attr.type
            if kind != want:
                raise self.fail(f"attribute {name!r} is {_attr_kind(kind)}, "
                                f"{node.op_type} takes {_attr_kind(want)}", label, node.op_type)
            if kind == _A.INT and name in _FLAGS and attr.i not in (0, 1):
                raise self.fail(f"attribute {name!r} is {attr.i}, not 0 or 1", label,
                                node.op_type)
            if kind == _A.INT and name in element_types \
                    and (attr.i not in _DTYPES or attr.i == TensorProto.UNDEFINED):
                raise self.fail(f"attribute {name!r} is {_dtype_name(attr.i)}, no tensor "
                                f"element type", label, node.op_type)
            if kind == _A.STRING and name in choices \
                    and (value := attr.s.decode()) not in choices[name]:   # UTF-8: attr_text
                raise self.fail(f"attribute {name!r} is {value!r}, not one of "
                                f"{', '.join(choices[name])}", label, node.op_type)
            if kind == _A.GRAPH and not attr.HasField("g") \
                    or kind == _A.TENSOR and not attr.HasField("t"):
                raise self.fail(f"attribute {name!r} holds no {_attr_kind(kind)}",
                                label, node.op_type)
            if kind in _TENSOR_KINDS:
                for k, tensor in enumerate(_tensors(attr)):
                    self.tensor(tensor, f"attribute {name!r} tensor {k}", label)
        missing = [n for n in schema.required if n not in seen]
        if missing:
            raise self.fail(f"required attribute(s) {', '.join(missing)} missing",
                            label, node.op_type)

    def attr_text(self, attr: AttributeProto, label: str) -> None:
        name = self.text(attr.name, "an attribute name", label)
        for s in [attr.s, *attr.strings]:
            try:
                s.decode()
            except UnicodeDecodeError:
                raise self.fail(f"attribute {name!r}: string {s[:16]!r} is not UTF-8",
                                label) from None

    # -- tensors -------------------------------------------------------------------------------
    def tensor(self, t: TensorProto, what: str, node: str | None = None) -> None:
        name = t.name
        if isinstance(name, bytes):   # the reason is made only here
            self.text(name, f"{what}: name", node)
        dtype = t.data_type
        if dtype not in _DTYPES or dtype == TensorProto.UNDEFINED:
            raise self.fail(f"{what} has element type {_dtype_name(dtype)}", node)
        dims = t.dims[:]
        if dims and min(dims) < 0:
            raise self.fail(f"{what} has a negative dim: {dims}", node)
        if t.data_location == TensorProto.EXTERNAL:
            raise self.fail(f"{what} keeps its data in an external file that was not loaded",
                            node)
        if dtype in _PACKED:
            return
        count = math.prod(dims)
        if t.HasField("raw_data"):
            if dtype == TensorProto.STRING:
                raise self.fail(f"{what}: a string tensor cannot hold raw_data", node)
            have = len(t.raw_data)
            want = count * _itemsize(dtype)
            unit = "bytes"
        else:
            have = len(getattr(t, _field(dtype)))
            want = count * (2 if dtype in _COMPLEX else 1)
            unit = "values"
        if have != want:
            raise self.fail(f"{what}: dims {dims} need {want} {unit} of data, it holds "
                            f"{have}", node)


class NodeFields(NamedTuple):
    """A node's protobuf fields, read once: each read of a field builds its Python objects
    afresh, and the checks and the builder read a node's fields some thirty times (a fifth of
    densenet121's parse went there)."""
    op_type: str | bytes
    domain: str | bytes
    name: str | bytes
    inputs: list[str | bytes]
    outputs: list[str | bytes]
    attrs: list[AttributeProto]
    has_graph: bool   # an attribute holds a body (If's branches, Loop's body)

    @staticmethod
    def of(node: NodeProto) -> "NodeFields":
        # a slice of a repeated field is a list, made in half the time list() takes
        attrs = node.attribute[:]
        return NodeFields(node.op_type, node.domain, node.name, node.input[:], node.output[:],
                          attrs, bool(attrs) and any(a.type in _GRAPH_KINDS for a in attrs))


class _Schema(NamedTuple):
    """What the checker reads of an op's schema, taken once per op type and opset: onnx.defs
    builds its lists and attribute map afresh at each access."""
    inputs: tuple[defs.OpSchema.FormalParameter, ...]
    outputs: tuple[defs.OpSchema.FormalParameter, ...]
    min_input: int
    max_input: int
    min_output: int
    max_output: int
    attributes: dict[str, "_Attr"]
    required: tuple[str, ...]   # the required attributes' names, sorted


class _Attr(NamedTuple):
    type: int
    required: bool


@functools.lru_cache(maxsize=None)
def _schema(op_type: str, opset: int, domain: str = "") -> _Schema | None:
    """None if opset ``opset`` of ``domain`` has no ``op_type``."""
    try:
        schema = defs.get_schema(op_type, opset, domain)
    except defs.SchemaError:
        return None
    attributes = {name: _Attr(a.type.value, a.required) for name, a in schema.attributes.items()}
    return _Schema(tuple(schema.inputs), tuple(schema.outputs), schema.min_input,
                   schema.max_input, schema.min_output, schema.max_output, attributes,
                   tuple(sorted(n for n, a in attributes.items() if a.required)))


@functools.lru_cache(maxsize=None)
def _has_schema(op_type: str, domain: str = "") -> bool:
    """onnx.defs.has, asked once per op type (each call goes into ONNX's C++ registry)."""
    return defs.has(op_type, domain)


@functools.lru_cache(maxsize=None)
def _itemsize(dtype: int) -> int:
    """An element type's bytes in raw_data (onnx.helper looks it up afresh at each call)."""
    return helper.tensor_dtype_to_np_dtype(dtype).itemsize


@functools.lru_cache(maxsize=None)
def _field(dtype: int) -> str:
    """The TensorProto field holding an element type's values."""
    return helper.tensor_dtype_to_field(dtype)


def _graphs(attr: AttributeProto) -> Iterable[GraphProto]:
    if attr.type == _A.GRAPH and attr.HasField("g"):
        return [attr.g]
    return list(attr.graphs) if attr.type == _A.GRAPHS else []


def _tensors(attr: AttributeProto) -> Iterable[TensorProto]:
    if attr.type == _A.TENSOR and attr.HasField("t"):
        return [attr.t]
    return list(attr.tensors) if attr.type == _A.TENSORS else []


def _reads(inputs: Iterable[str], attrs: Iterable[AttributeProto]) -> set[str]:
    """What a node reads: its inputs and whatever its bodies read from outside themselves."""
    found = {v for v in inputs if v}
    for attr in attrs:
        if attr.type in _GRAPH_KINDS:
            for body in _graphs(attr):
                found |= _free_values(body)
    return found


def _free_values(g: GraphProto) -> set[str]:
    defined = {v.name for v in g.input} | {t.name for t in g.initializer} \
        | {v for node in g.node for v in node.output}
    read = {v.name for v in g.output}
    for node in g.node:
        read |= _reads(node.input, node.attribute)
    return read - defined


def _attr_kind(kind: int) -> str:
    return _A.AttributeType.Name(kind) if kind in _A.AttributeType.values() else f"kind {kind}"


def _dtype_name(dtype: int) -> str:
    return TensorProto.DataType.Name(dtype) if dtype in TensorProto.DataType.values() \
        else f"{dtype} (no such ONNX type)"


# -- ONNX's strict inference ---------------------------------------------------------------------
_INFERENCE_ERROR = re.compile(r"\(op_type:([^,)]*)(?:, node name: ([^)]*))?\):\s*(.*)")
_ERROR_TAG = re.compile(r"\[\w*(?:Inference|Validation)Error\]\s*")
_DECLARED = re.compile(r"differs from existing|existing shape differ")
_UNSUPPORTED = re.compile(r"(?:(\w+) typestr: \w+, )?has unsupported type: (\S+)$")
# ONNX's inference makes one dim per element of a shape operand it cannot read (Expand's,
# Reshape's): a declared dim of 2^40 there is 2^40 dims, built in C++ where nothing can stop it.
# A model declaring a dim this large gets no ONNX inference (only a seed; ours decides).
ONNX_INFERENCE_MAX_DIM = 1 << 24


def infer_types(model: onnx.ModelProto, source: str, bodies: bool = False
                ) -> tuple[onnx.ModelProto, ParseError | None]:
    """``model`` with ONNX's inferred types, and ONNX's refusal of it: inferred strictly, a node
    ONNX finds inconsistent with its op's type and shape constraints is refused with ONNX's
    reason. Otherwise (or if ONNX cannot infer the model for reasons of its own) the types are
    inferred leniently: they are only a seed for our own InferShape. ``bodies``: some node
    holds a graph (If's branches ...), whose declared dims are looked at too."""
    lowest, largest = _declared_dim_range(model.graph, bodies)
    if lowest < 0:
        # A negative dim (-1: how some writers say "unknown") is unknown to ONNX's inference,
        # which would index with it (GatherND's indices: a segfault), and to ours (UNKNOWN_DIM).
        model = _dims_unknown(model, lambda d: d < 0)
    if largest > ONNX_INFERENCE_MAX_DIM:
        # no seed, but the types are still checked: with the huge dims unknown to ONNX
        return model, _strict(_dims_unknown(model, lambda d: d > ONNX_INFERENCE_MAX_DIM),
                              source)[1]
    inferred, refusal = _strict(model, source)
    if inferred is not None:
        return inferred, None
    try:
        return onnx.shape_inference.infer_shapes(model), refusal
    except Exception:  # noqa: BLE001 -- only a seed
        return model, refusal


def _strict(model: onnx.ModelProto, source: str
            ) -> tuple[onnx.ModelProto | None, ParseError | None]:
    """ONNX's strict inference: the inferred model, or ONNX's refusal (None, None when ONNX
    fails for reasons of its own)."""
    try:
        # check_type: an input of a type no version of its op takes (a float into
        # StringNormalizer, an Add of float and double) is refused here, not met by a kernel
        return onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True), None
    except onnx.shape_inference.InferenceError as err:
        refusal, excused = _refusal(str(err), source, model.graph)
        return None, refusal or _newest_types(model, excused, source)
    except Exception:  # noqa: BLE001 -- not a verdict on the model
        return None, None


def _dims_unknown(model: onnx.ModelProto, odd: Callable[[int], bool]) -> onnx.ModelProto:
    """A copy of ``model`` whose graphs (bodies too) declare every ``odd`` dim unknown."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for g in _all_graphs(copy.graph, True):
        for value in _declared(g):
            for dim in value.type.tensor_type.shape.dim:
                if odd(dim.dim_value):
                    dim.dim_param = "unknown"
    return copy


def _all_graphs(g: GraphProto, bodies: bool) -> Iterator[GraphProto]:
    """``g``, then (if ``bodies``) every graph its nodes hold, nested ones too."""
    yield g
    if bodies:
        for node in g.node:
            for attr in node.attribute:
                if attr.type in _GRAPH_KINDS:
                    for body in _graphs(attr):
                        yield from _all_graphs(body, True)


def _declared(g: GraphProto) -> tuple[onnx.ValueInfoProto, ...]:
    return (*g.input, *g.output, *g.value_info)


def _declared_dim_range(g: GraphProto, bodies: bool = False) -> tuple[int, int]:
    """The smallest and the largest dim the graph's values (and its bodies') are declared
    with (0 for none)."""
    dims = [d.dim_value for graph in _all_graphs(g, bodies) for v in _declared(graph)
            for d in v.type.tensor_type.shape.dim]
    return min(dims, default=0), max(dims, default=0)


def _newer_op_takes(op_type: str, reason: str) -> bool:
    """Is ONNX refusing a type only because the model's opset predates it (float8 through an
    Identity of opset 13)? Our kernels follow the newest op, so such a node runs."""
    m = _UNSUPPORTED.search(reason)
    if m is None or not defs.has(op_type.strip()):
        return False
    param, type_str = m.groups()
    newest = defs.get_schema(op_type.strip())
    # at the parameter ONNX names, not anywhere: a float is no Gather index though Gather takes
    # floats (a constraint's name may change between versions, the parameter's does not)
    formal = next((f for f in (*newest.inputs, *newest.outputs) if f.name == param), None)
    return any(type_str in c.allowed_type_strs for c in newest.type_constraints
               if formal is None or c.type_param_str == formal.type_str)


def _refusal(message: str, source: str, graph: GraphProto
             ) -> tuple[ParseError | None, frozenset[str]]:
    """The first error ONNX reported (one a line) that is the model's, as a ParseError (None if
    there is none), and the op types ONNX refused a type of only for the model's opset
    (``_newer_op_takes``). Not the model's: an error inside the expansion of a function op
    (ONNX's own body for the op), and a declared type or shape that differs from the inferred
    one (declared types only seed our InferShape, which decides). ONNX names a node only when
    it has a name: an unnamed one is found when it is its type's only node."""
    excused: set[str] = set()
    for line in _ERROR_TAG.sub("", message).replace("Inference error(s):", "").splitlines():
        m = _INFERENCE_ERROR.search(line)
        if m is None:
            if line.strip():
                return ParseError(source, f"ONNX type inference: {line.strip()}"), frozenset()
            continue
        op_type, node, reason = m.group(1), m.group(2), m.group(3).strip()
        if _INFERENCE_ERROR.search(reason) or _DECLARED.search(reason):
            continue
        if _newer_op_takes(op_type, reason):
            excused.add(op_type.strip())
            continue
        if not node:
            same = [i for i, n in enumerate(graph.node) if n.op_type == op_type]
            node = f"{op_type}_{same[0]}" if len(same) == 1 else None
        return ParseError(source, f"ONNX type inference: {reason}", node, op_type), frozenset()
    return None, frozenset(excused)


def _newest_types(model: onnx.ModelProto, ops: frozenset[str], source: str
                  ) -> ParseError | None:
    """The type check ONNX did not finish: at the first input type it refuses, ONNX checks
    nothing more of the node, so when that refusal is excused (a bf16 into an Add of opset 6)
    the node's other inputs are unchecked (a str beside the bf16). Here each node of the ``ops``
    has its inputs' types checked against its op at the model's opset and at the newest, whose
    kernel runs it: each a type one of them takes, and the inputs sharing a type parameter of
    one type."""
    try:
        typed = onnx.shape_inference.infer_shapes(model)   # the types of values inside the graph
    except Exception:  # noqa: BLE001 -- only the declared types, then
        typed = model
    graphs = list(_all_graphs(typed.graph, True))
    types = {v.name: v.type.tensor_type.elem_type for g in graphs for v in _declared(g)
             if v.type.HasField("tensor_type") and v.type.tensor_type.elem_type}
    types.update((t.name, t.data_type) for g in graphs for t in g.initializer)
    opset = default_opset(model)
    for g in graphs:
        for k, node in enumerate(g.node):
            if node.op_type in ops and node.domain in DEFAULT_DOMAINS:
                clash = _type_clash(node, opset, types)
                if clash:
                    return ParseError(source, clash, node.name or f"{node.op_type}_{k}",
                                      node.op_type)
    return None


def _type_clash(node: NodeProto, opset: int, types: dict[str, int]) -> str | None:
    """Why ``node``'s input types are ones neither its op at ``opset`` nor its newest takes;
    None if they are not."""
    old, newest = defs.get_schema(node.op_type, opset), _takes(defs.get_schema(node.op_type))
    takes = {name: then | newest.get(name, set()) for name, then in _takes(old).items()}
    params = {c.type_param_str for c in old.type_constraints}
    bound: dict[str, tuple[int, int]] = {}
    for i, name in enumerate(node.input if old.inputs else ()):
        if not name or types.get(name) not in _DTYPES:
            continue
        formal = old.inputs[min(i, len(old.inputs) - 1)]
        dtype, param = types[name], formal.type_str
        if f"tensor({TensorProto.DataType.Name(dtype).lower()})" not in takes[formal.name]:
            return f"input {i} ({formal.name}) is {_dtype_name(dtype)}, a type {node.op_type} " \
                   f"does not take there"
        if param not in params or not formal.is_homogeneous:
            continue
        first, their = bound.setdefault(param, (i, dtype))
        if their != dtype:
            return f"input {first} is {_dtype_name(their)} and input {i} " \
                   f"{_dtype_name(dtype)}: {node.op_type} takes one type for both"
    return None


def _takes(schema: defs.OpSchema) -> dict[str, set[str]]:
    """The types each input of ``schema`` takes, by the input's name."""
    allowed = {c.type_param_str: set(c.allowed_type_strs) for c in schema.type_constraints}
    return {f.name: allowed.get(f.type_str, {f.type_str}) for f in schema.inputs}
