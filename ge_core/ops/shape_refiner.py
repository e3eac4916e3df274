"""ShapeRefiner (GE's ShapeRefiner::InferShapeAndType + UpdatePeerInputDesc).

``infer_shape(node)`` runs the node's InferShape and pushes each output desc to the input descs
of its consumers, so a pass that rewrote a node can re-infer it and its consumers see the change.
``infer_graph(graph)`` does that in topological order, entering a node's subgraphs after the node's
inputs are known (their Data nodes read the parent's input descs) and before the node itself
(whose outputs come from the subgraphs' NetOutput). ``infer_for_inputs`` infers a copy of an op
for the inputs one execution has (GE's InferShape at run time), leaving its graph untouched.
"""
from __future__ import annotations

from typing import Sequence

from ge_core.graph.anchor import GraphError
from ge_core.graph.attr_names import ATTR_NAME_WEIGHTS, OPSET
from ge_core.graph.compute_graph import ComputeGraph
from ge_core.graph.events import DescUpdated
from ge_core.graph.ge_tensor import GeShape, GeTensor, GeTensorDesc
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


def infer_shape(node: Node) -> None:
    op_def = get_op_def(node.type)
    if op_def is None:
        raise InferShapeError(node, f"no InferShape for op type {node.type}; known: "
                                    f"{', '.join(supported_ops())}")
    bus = node.graph.bus
    before = [str(d) for d in node.op_desc.output_descs] if bus.observed else None
    try:
        op_def.infer_shape(InferShapeContext(node))
    except ShapeError as err:
        raise InferShapeError(node, str(err)) from err
    except (ArithmeticError, LookupError, TypeError, ValueError) as err:
        # A rule that met a node it did not expect: still one line naming the node (with the
        # Python error, so the defect shows).
        raise InferShapeError(node, f"InferShape failed: {type(err).__name__}: {err}") from err
    if before is not None:  # a watch or a step sees a shape change like any other edit
        for i, (old, desc) in enumerate(zip(before, node.op_desc.output_descs)):
            if old != str(desc):
                bus.emit(DescUpdated, node.name, i, old, str(desc))
    update_peer_input_desc(node)


def update_peer_input_desc(node: Node) -> None:
    """Each consumer's input desc takes the producing output's shape, dtype and origin shape.
    Its format stays: as in GE, the consumer's engine decides the layout it reads."""
    for anchor in node.out_data_anchors:
        desc = node.op_desc.output_descs[anchor.idx]
        for peer in anchor.peers:
            peer_desc = peer.owner.op_desc.input_descs[peer.idx]
            peer_desc.shape, peer_desc.dtype = desc.shape, desc.dtype
            peer_desc.origin_shape, peer_desc.absent = desc.origin_shape, False


def infer_graph(graph: ComputeGraph) -> None:
    for node in graph.topological_sort():
        for name in node.op_desc.subgraph_names:
            infer_graph(graph.subgraph(name))
        infer_shape(node)


# The throwaway graphs' bus: no observer, so their edits cost nothing.
_UNHEARD = TraceBus()
InputSpec = tuple[Sequence[int], DataType] | None   # shape and dtype; None: as the desc says


def infer_for_inputs(op_desc: OpDesc, inputs: Sequence[InputSpec], consts: dict[int, GeTensor],
                     opset: int) -> list[GeTensorDesc]:
    """``op_desc``'s output descs for inputs of these shapes and dtypes, inferred on a copy in a
    one-node graph of its own; ``consts``: input values an InferShape may read (Reshape's shape,
    Slice's starts), linked in as Consts. InferShapeError if the op refuses the inputs."""
    graph = ComputeGraph(op_desc.name, bus=_UNHEARD)
    graph.attrs[OPSET] = opset
    op = op_desc.clone()
    for i, spec in enumerate(inputs):
        if spec is not None:
            op.input_descs[i] = GeTensorDesc(GeShape(tuple(spec[0])), spec[1])
    node = graph.add_node(op)
    for i, value in sorted(consts.items()):
        const = graph.add_node(OpDesc(f"{op.name}_input{i}", "Const", 0, 1,
                                      {ATTR_NAME_WEIGHTS: value}))
        const.op_desc.output_descs[0] = value.desc.copy()
        const.out_data_anchors[0].link_to(node.in_data_anchors[i])
    infer_shape(node)
    return op.output_descs
