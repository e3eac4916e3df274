"""ConcatNotaskPass (GE's compiler/graph/passes/memory_optimize/concat_notask_pass.cc and
notask_pass_base.cc; docs/en/design/features/concat_no_task.md): a Concat whose inputs can sit
side by side in memory launches no task.

GE runs it last in OptimizeStage2, once the graph is stable, at its default optimisation level
(O3). For each ConcatD / ConcatV2D (ONNX's Concat, whose axis is an attribute, is GE's ConcatD)
with known dims it checks the inputs, the concat dim and the consumers, and if all pass marks
the op: no task, inputs continuous with no padding, output reusing the inputs' memory from
dim 0. The memory assigner then lays the producers' outputs end to end inside the Concat's
output, so each producer writes its slice in place, and the task generator emits nothing.

Checks modelled (NotaskPassBase's InputCheck, CheckDim, OutputCheck):
- every input has dims (no scalar) and, with several inputs, a size that is a multiple of 32 B;
- no two inputs come from one output (traced through GE-local views such as Reshape);
- no input is made by Data, RefData, Variable, Const or Constant, or by an op with subgraphs;
- no producer already gave that output to another Concat ("can_reused_for_concat_optimize":
  GE marks the tensor desc; here the pass remembers the outputs it handed out);
- no input is also a graph output (it feeds NetOutput, itself or through a view of it);
- no producer is itself continuous, a view, or no-task;
- every dim before the concat dim is 1 (ND: the only format here, so no transfer dims);
- no consumer (through a Reshape) is already no-task or a view.
One check is ours: the Concat's own result must not be a graph output (through views too),
which this workbench keeps in the user's buffer (zero-copy), apart from the feature map the
inputs live in.
Memory types (all HBM here) and LxFusion (not modelled) need no check; GE also looks inside
subgraphs, this model at the root graph only.
"""
from __future__ import annotations

from typing import Iterator

from ge_core.graph import ComputeGraph, Node
from ge_core.graph.anchor import OutDataAnchor
from ge_core.graph.attr_names import (ATTR_NAME_CONTINUOUS_INPUT, ATTR_NAME_CONTINUOUS_OUTPUT,
                                      ATTR_NAME_NOPADDING_CONTINUOUS_INPUT, ATTR_NAME_NOTASK,
                                      ATTR_NAME_OUTPUT_REUSE_INPUT,
                                      ATTR_NAME_REUSE_INPUT_ON_DIM_INDEX, REUSE_INPUT_INDEX)
from ge_core.graph.compute_graph import ALIAS_OPS, NETOUTPUT
from ge_core.graph.ge_tensor import raw_bytes
from ge_core.passes.graph_pass import GraphPass

CONCAT_TYPES = frozenset({"Concat"})
NOTASK_TENSOR_ALIGN_SIZE = 32
NOT_SUPPORT_TYPES = frozenset({"Data", "RefData", "Variable", "Const", "Constant"})
_PRODUCER_ATTRS = (ATTR_NAME_CONTINUOUS_INPUT, ATTR_NAME_CONTINUOUS_OUTPUT, ATTR_NAME_NOTASK,
                   ATTR_NAME_OUTPUT_REUSE_INPUT, ATTR_NAME_NOPADDING_CONTINUOUS_INPUT,
                   REUSE_INPUT_INDEX)
_CONSUMER_ATTRS = (ATTR_NAME_NOTASK, ATTR_NAME_OUTPUT_REUSE_INPUT,
                   ATTR_NAME_NOPADDING_CONTINUOUS_INPUT)


def is_no_task(node: Node) -> bool:
    return bool(node.op_desc.get_attr(ATTR_NAME_NOTASK))


def _source(anchor: OutDataAnchor) -> OutDataAnchor:
    """The output a view's output is (GE's GetFirstOutAnchorNotInRefNode)."""
    while anchor.owner.type in ALIAS_OPS and anchor.owner.in_data_anchors and \
            anchor.owner.in_data_anchors[0].peer is not None:
        anchor = anchor.owner.in_data_anchors[0].peer
    return anchor


def _readers(anchor: OutDataAnchor) -> Iterator[Node]:
    """The nodes reading ``anchor``'s tensor, and those reading a view of it: the Reshapes
    ReshapeRecoveryPass put back, one an edge, each lead to readers of their own (walked
    without recursion: a chain of views may be longer than Python's stack)."""
    todo = [anchor]
    while todo:
        for peer in todo.pop().peers:
            yield peer.owner
            if peer.owner.type in ALIAS_OPS and peer.idx == 0:
                todo += peer.owner.out_data_anchors


class ConcatNotaskPass(GraphPass):
    name = "ConcatNotaskPass"
    covers_subgraphs = True   # ours: the root graph's Concats only (a subgraph's memory is
                              # planned with its parent's, where no-task is not modelled)

    def run(self, graph: ComputeGraph) -> bool:
        claimed: set[str] = set()   # outputs a Concat took: can_reused_for_concat_optimize=false
        changed = False
        for node in graph.topological_sort():
            if node.type in CONCAT_TYPES and self._why_not(node, claimed) is None:
                op = node.op_desc
                op.set_attr(ATTR_NAME_NOTASK, True)
                op.set_attr(ATTR_NAME_NOPADDING_CONTINUOUS_INPUT, True)
                op.set_attr(ATTR_NAME_OUTPUT_REUSE_INPUT, True)
                op.set_attr(ATTR_NAME_REUSE_INPUT_ON_DIM_INDEX, 0)
                claimed.update(_source(a.peer).label for a in node.in_data_anchors)
                changed = True
        return changed

    def _why_not(self, node: Node, claimed: set[str]) -> str | None:
        """Why ``node`` must keep its task (the first check that fails), or None."""
        op = node.op_desc
        descs = op.input_descs + op.output_descs
        if any(d.absent or d.shape.is_unknown for d in descs):
            return "unknown or absent tensors"
        anchors = node.in_data_anchors
        if len(anchors) < 2 or any(a.peer is None for a in anchors):
            return "fewer than two inputs"
        sources = [_source(a.peer) for a in anchors]
        if len({s.label for s in sources}) < len(sources):
            return "two inputs from one output"
        for a, src in zip(anchors, sources):
            producer, desc = src.owner, op.input_descs[a.idx]
            if not desc.shape.dims or raw_bytes(desc) % NOTASK_TENSOR_ALIGN_SIZE:
                return f"input {a.idx} is a scalar or not {NOTASK_TENSOR_ALIGN_SIZE}-B aligned"
            if producer.type in NOT_SUPPORT_TYPES or producer.op_desc.subgraph_names:
                return f"input {a.idx} comes from a {producer.type}"
            if src.label in claimed:
                return f"input {a.idx} already lies in another Concat"
            if any(reader.type == NETOUTPUT for reader in _readers(src)):
                return f"input {a.idx} is also a graph output"
            if any(producer.op_desc.get_attr(k) for k in _PRODUCER_ATTRS):
                return f"input {a.idx}'s producer places its memory itself"
        axis = int(op.get_attr("axis", 0))
        for d in op.input_descs:
            dims = d.shape.dims
            if any(dim != 1 for dim in dims[:axis % len(dims)]):
                return "a dim before the concat dim is not 1"
        if any(reader.type == NETOUTPUT for reader in _readers(node.out_data_anchors[0])):
            return "its result is a graph output"
        for consumer in self._consumers(node):
            if any(consumer.op_desc.get_attr(k) for k in _CONSUMER_ATTRS):
                return f"consumer {consumer.name} places its memory itself"
        return None

    @staticmethod
    def _consumers(node: Node) -> list[Node]:
        """The nodes reading the Concat's result, looking through a Reshape to its readers."""
        out: list[Node] = []
        for consumer in node.out_data_nodes():
            readers = consumer.out_data_nodes() if consumer.type == "Reshape" else []
            out += readers or [consumer]
        return out
