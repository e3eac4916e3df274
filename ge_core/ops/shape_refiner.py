"""ShapeRefiner (GE's ShapeRefiner::InferShapeAndType + UpdatePeerInputDesc).

``infer_shape(node)`` runs the node's InferShape and pushes each output desc to the input descs
of its consumers, so a pass that rewrote a node can re-infer it and its consumers see the change.
``infer_graph(graph)`` does that in topological order, entering a node's subgraphs after the node's
inputs are known (their Data nodes read the parent's input descs) and before the node itself
(whose outputs come from the subgraphs' NetOutput). An If or Case branch whose InferShape fails
for the shapes at hand does not fail the graph: the branch may never be taken (a model serving
8 kHz and 16 kHz audio squeezes a dim only the other rate makes 1), so from the failing node on
its shapes become unknown, as GE's UpdateOutputFromSubgraphs makes a parent output unknown when
its branches disagree; it runs with run-time InferShape if taken, and the error is reported
then. When the failing node's input shapes were all known, taking the branch always fails: it
gives the parent no result (If and Case take their outputs from the other branches), and a
static build compiles it to a FailedBranch node that reports the error when taken.
``infer_for_inputs`` infers a copy of an op for the inputs one execution has (GE's InferShape at run
time), leaving its graph untouched.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Sequence

from ge_core.graph.anchor import GraphError
from ge_core.graph.attr_names import (ATTR_NAME_WEIGHTS, INFER_ALWAYS_FAILS, INFER_DEFERRED,
                                      OPSET)
from ge_core.graph.compute_graph import ComputeGraph
from ge_core.graph.ge_tensor import INT64_MAX, GeShape, GeTensor, GeTensorDesc
from ge_core.graph.node import Node
from ge_core.graph.op_desc import OpDesc
from ge_core.graph.types import DataType
from ge_core.ops.infer_context import InferShapeContext
from ge_core.ops.op_registry import get_op_def, supported_ops
from ge_core.ops.shape_rules import ShapeError
from npu_emu.base.trace import TraceBus


class InferShapeError(GraphError):
    def __init__(self, node: Node, reason: str) -> None:
        self.node_name = node.name
        self.op_type = node.type
        self.reason = reason
        super().__init__(f"node {node.name} ({node.type}): {reason}")


_GRAPH_INPUTS = frozenset({"Data", "RefData"})


def _past_int64_bytes(desc: GeTensorDesc) -> bool:
    """Whether the output's non-zero dims hold more bytes than an int64 counts: numpy holds no
    array of that shape, not even an empty one ("array is too big"), so the run would fail in
    numpy's words when it reads the output back."""
    dims = desc.shape.dims
    if len(dims) < 3 and max(dims, default=0) < 1 << 28:   # the commonest shapes, at once
        return False
    elements = math.prod(d for d in dims if d > 0)
    if elements <= INT64_MAX >> 4:   # no element type is wider than 16 bytes
        return False
    try:
        return elements * desc.dtype.to_numpy().itemsize > INT64_MAX
    except TypeError:   # a type numpy holds no array of (a string's size is not known)
        return False


def infer_shape(node: Node) -> list[Node]:
    """Returns the consumers whose input desc changed."""
    infer_outputs(node)
    return update_peer_input_desc(node)


def infer_outputs(node: Node) -> None:
    """The node's InferShape: its output descs, not yet pushed to its consumers."""
    op_def = get_op_def(node.type)
    if op_def is None:
        raise InferShapeError(node, f"no InferShape for op type {node.type}; known: "
                                    f"{', '.join(supported_ops())}")
    try:   # each output desc it changes is announced as it is written (InferShapeContext)
        op_def.infer_shape(InferShapeContext(node))
        for i, desc in enumerate(node.op_desc.output_descs):
            if max(desc.shape.dims, default=0) > INT64_MAX:   # no OM's shape field holds it
                raise ShapeError(f"output {i} would be {desc.shape}: a dim past int64")
            if node.type not in _GRAPH_INPUTS and _past_int64_bytes(desc) and not any(
                    _past_int64_bytes(d) for d in node.op_desc.input_descs if not d.absent):
                # the node that makes such a shape is at fault, not one that passes it on (a
                # graph input of it is refused when a run is given one)
                raise ShapeError(f"output {i} would be {desc}: more bytes than an int64 counts")
    except ShapeError as err:
        raise InferShapeError(node, str(err)) from err
    except (ArithmeticError, LookupError, TypeError, ValueError) as err:
        # A rule that met a node it did not expect: still one line naming the node (with the
        # Python error, so the defect shows).
        raise InferShapeError(node, f"InferShape failed: {type(err).__name__}: {err}") from err


def holds_descs(reader: Node, node: Node) -> bool:
    """Whether each input of ``reader`` from ``node`` holds the very output desc it reads, one
    not saying absent: as a push would leave it (update_peer_input_desc's first question)."""
    outputs = node.op_desc.output_descs
    for a in reader.in_data_anchors:
        peer = a.peer
        if peer is not None and peer.owner is node:
            desc = outputs[peer.idx]
            if reader.op_desc.input_descs[a.idx] is not desc or desc.absent:
                return False
    return True


def update_peer_input_desc(node: Node) -> list[Node]:
    """Each consumer's input desc takes the producing output's shape, dtype and origin shape.
    Its format stays: as in GE, the consumer's engine decides the layout it reads. Returns the
    consumers whose shape or dtype changed (GE's UpdateTensorDescToPeerInputs' changed nodes)."""
    changed: list[Node] = []
    for anchor, desc in zip(node.out_data_anchors, node.op_desc.output_descs):
        shape, dtype, origin = desc.shape, desc.dtype, desc.origin_shape
        # a reader holding this very desc (most: see below) is as it would be made; asked
        # first, since a node re-passed each round pushes to every reader again (a Const
        # read by every Gather of a model, one folded a round)
        own = None if desc.absent else desc
        for peer in anchor.peers:
            op = peer.owner.op_desc
            peer_desc = op.input_descs[peer.idx]
            if peer_desc is own:
                continue
            # the one comparison: the same shape object, as a second inference mostly finds, is
            # equal without the dataclass's field by field comparison; a desc already as it
            # would be made is not written, any other differs from the one written (its shape,
            # dtype, origin shape or absence), so update_input_desc need not compare again
            if peer_desc.shape is not shape and peer_desc.shape != shape \
                    or peer_desc.dtype != dtype:
                changed.append(peer.owner)
            elif (peer_desc.origin_shape is origin or peer_desc.origin_shape == origin) \
                    and not peer_desc.absent:
                continue
            # its format stays: the reader's engine decides its layout (descs are frozen: the
            # producer's own is shared when the layouts agree)
            if peer_desc.format is desc.format and peer_desc.origin_format is desc.origin_format \
                    and not desc.absent:
                new = desc
            else:
                new = peer_desc.inferred(shape, dtype, origin_shape=origin, absent=False)
            op.update_input_desc(peer.idx, new, differs=True)
    return changed


def infer_graph(graph: ComputeGraph) -> None:
    for node in graph.topological_sort():
        infer_node(graph, node)


def infer_node(graph: ComputeGraph, node: Node) -> None:
    """``node``'s InferShape in ``graph``, its subgraphs' first (a branch's deferred where it
    fails): one step of ``infer_graph``, for a walk that stops between nodes (the parse)."""
    branching = node.type in BRANCHING
    for name in node.op_desc.subgraph_names:
        (_infer_branch if branching else infer_graph)(graph.subgraph(name))
    infer_shape(node)


BRANCHING = frozenset({"If", "Case"})   # ops that run one of their subgraphs, maybe none


def is_branch(graph: ComputeGraph) -> bool:
    parent = graph.parent_node
    return parent is not None and parent.type in BRANCHING


Deferral = tuple[str, bool]   # why a branch's InferShape failed; whether it always will


def deferral(node: Node, err: InferShapeError) -> Deferral:
    """``node`` of a branch failed InferShape: the branch runs with run-time InferShape if
    taken; when the node's input shapes were all known, no run-time shape can differ, so taking
    it always fails."""
    return str(err), not any(d.shape.is_unknown for d in node.op_desc.input_descs
                             if not d.absent)


def set_deferral(branch: ComputeGraph, deferred: Deferral | None) -> None:
    """A branch's deferral as its last InferShape left it (None: it inferred), written where it
    differs from the one before: a branch inferred again to the same end is no edit."""
    reason, always = deferred if deferred is not None else (None, False)
    for key, value in ((INFER_DEFERRED, reason), (INFER_ALWAYS_FAILS, True if always else None)):
        if value is None:
            branch.del_attr(key)
        else:
            branch.set_attr(key, value)


def set_unknown(node: Node) -> None:
    """A node of a deferred branch: its outputs' shapes are unknown until run time."""
    op, unknown = node.op_desc, GeShape.unknown_rank()
    for i, desc in enumerate(op.output_descs):
        op.update_output_desc(i, replace(desc, shape=unknown, origin_shape=unknown))
    update_peer_input_desc(node)


def _infer_branch(branch: ComputeGraph) -> None:
    order = branch.topological_sort()
    deferred = None
    try:
        infer_graph(branch)
    except InferShapeError as err:
        if err.node_name not in {n.name for n in order}:
            raise   # a failure inside a nested branch's own parent: not this branch's to defer
        at = next(i for i, n in enumerate(order) if n.name == err.node_name)
        deferred = deferral(order[at], err)
        for node in order[at:]:
            set_unknown(node)
    set_deferral(branch, deferred)


# The throwaway graphs' bus: no observer, so their edits cost nothing.
_UNHEARD = TraceBus()
InputSpec = tuple[Sequence[int], DataType] | None   # shape and dtype; None: as the desc says


def infer_for_inputs(op_desc: OpDesc, inputs: Sequence[InputSpec], consts: dict[int, GeTensor],
                     opset: int, bodies: ComputeGraph | None = None) -> list[GeTensorDesc]:
    """``op_desc``'s output descs for inputs of these shapes and dtypes, inferred on a copy in a
    one-node graph of its own; ``consts``: input values an InferShape may read (Reshape's shape,
    Slice's starts), linked in as Consts; ``bodies``: the graph whose subgraphs an If's or a
    Loop's InferShape reads its results from (read only). InferShapeError if the op refuses the
    inputs."""
    graph = ComputeGraph(op_desc.name, bus=_UNHEARD, attrs={OPSET: opset})
    if bodies is not None:
        graph.share_subgraphs_of(bodies)
    op = op_desc.clone()
    for i, spec in enumerate(inputs):
        if spec is not None:
            op.update_input_desc(i, GeTensorDesc(GeShape(tuple(spec[0])), spec[1]))
    node = graph.add_node(op)
    for i, value in sorted(consts.items()):
        const = graph.add_node(OpDesc(f"{op.name}_input{i}", "Const", 0, 1,
                                      {ATTR_NAME_WEIGHTS: value}))
        const.op_desc.update_output_desc(0, value.desc)
        const.out_data_anchors[0].link_to(node.in_data_anchors[i])
    infer_shape(node)
    return op.output_descs
