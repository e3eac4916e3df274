"""AutoFusePass: chains of pointwise ops become one AscBackend node, one vector kernel (GE's
compiler/graph/passes/feature/auto_fuse_pass.cc over graph/optimize/autofuse/).

GE lowers every op it can to AscIR loops, lets its fusion strategy merge neighbouring AscBackend
nodes and lifts lone ones back to the op they were; no pattern is written by hand. Here:

1. can-fuse: a pointwise op (GE's REGISTER_POINTWISE_LOWER list and its pointwise
   REGISTER_LOWERINGs - AddN, LeakyRelu, Elu, Log, ClipByValue - in lowering_impl.cpp, those
   with an ONNX op here) on float tensors of known shape;
2. grouping, in topological order: an op joins the group of its first producer that is
   already in one, unless that would close a cycle once the groups are fused (GE's
   CycleDetector); groups of one are left alone (GE's lifting);
3. each group becomes ``autofuse_<n>_<Type>_<Type>...`` (GE's CreateFuseNodeName), type
   AscBackend, its steps recorded for the kernel (npu_emu/op_impl/asc_backend.py): the group's
   outside inputs are its inputs, each value read outside the group one of its outputs.

Producers that are constants stay outside, as inputs. GE places AscBackend on the AI Core
engine (MarkEngineAttrForAutofuseNode): our placer does the same by type.
"""
from __future__ import annotations

import json

from ge_core.graph import ComputeGraph, GraphUtils, Node, OpDesc
from ge_core.graph.anchor import OutDataAnchor
from ge_core.graph.attr_names import ATTR_NAME_DATA_DUMP_ORIGIN_OP_NAMES
from ge_core.graph.op_desc import kernel_attrs
from ge_core.graph.types import DataType
from ge_core.passes.graph_pass import GraphPass
from ge_core.passes.pass_utils import graph_opset
from npu_emu.op_impl.asc_backend import ASC_BACKEND, ASC_GRAPH, ASC_OPSET, ASC_OUTPUTS, AscStep

POINTWISE_OPS = frozenset({"Abs", "Add", "Div", "Erf", "Exp", "Max", "Min", "Mul", "Neg", "Pow",
                           "Reciprocal", "Relu", "Sigmoid", "Sign", "Sqrt", "Sub", "Tanh",
                           "LeakyRelu", "Elu", "Log", "Clip", "Sum"})   # Sum: GE's AddN
FLOAT_TYPES = frozenset({DataType.DT_FLOAT, DataType.DT_FLOAT16, DataType.DT_BF16})
MIN_GROUP = 2


class AutoFusePass(GraphPass):
    name = "AutoFusePass"

    def run(self, graph: ComputeGraph) -> bool:
        groups = _groups(graph)
        for n, group in enumerate(groups):
            _fuse(graph, group, n)
        return bool(groups)


def can_fuse(node: Node) -> bool:
    op = node.op_desc
    if node.type not in POINTWISE_OPS or len(op.output_descs) != 1:
        return False
    descs = [d for d in op.input_descs + op.output_descs if not d.absent]
    if any(d.dtype not in FLOAT_TYPES or d.shape.rank is None or d.shape.is_unknown
           for d in descs):
        return False
    try:
        json.dumps(kernel_attrs(op))
    except TypeError:
        return False   # an attribute only the op's own node can carry (a tensor)
    return True


def _groups(graph: ComputeGraph) -> list[list[Node]]:
    group_of: dict[Node, int] = {}
    groups: list[list[Node]] = []
    for node in graph.topological_sort():
        if not can_fuse(node):
            continue
        target = next((group_of[p] for p in node.in_data_nodes()
                       if p in group_of and not _has_cycle(node, groups[group_of[p]],
                                                           group_of, groups)), None)
        if target is None:
            target = len(groups)
            groups.append([])
        groups[target].append(node)
        group_of[node] = target
    return [g for g in groups if len(g) >= MIN_GROUP]


def _has_cycle(node: Node, group: list[Node], group_of: dict[Node, int],
               groups: list[list[Node]]) -> bool:
    """GE's CycleDetector::HasDetectedCycle for ``node`` joining ``group``, on the graph as it
    will be once every group so far is one fused node: a path leaving the merged group and
    coming back into it would be a cycle. Checking only ``node``'s own producers misses a path
    through another group (YOLOv8's box decoding: x1y1 + x2y2 in one group, x2y2 - x1y1 in
    another, each feeding the other)."""
    merged = set(group)
    merged.add(node)
    seen: set[Node] = set()
    stack = [s for m in merged for s in m.out_nodes() if s not in merged]
    while stack:
        n = stack.pop()
        if n in merged:
            return True
        if n in seen:
            continue
        # Another group is one node once fused: reaching one member reaches all its outputs.
        members = groups[group_of[n]] if n in group_of else [n]
        seen.update(members)
        stack.extend(s for m in members for s in m.out_nodes())
    return False


def _fuse(graph: ComputeGraph, group: list[Node], n: int) -> Node:
    members = set(group)
    inputs: list[OutDataAnchor] = []
    names: dict[str, str] = {}        # anchor label -> value name in the steps
    steps: list[str] = []
    for k, node in enumerate(group):
        args: list[str | None] = []
        for anchor in node.in_data_anchors:
            src = anchor.peer
            if src is None:
                args.append(None)
                continue
            if src.label not in names:
                names[src.label] = f"x{len(inputs)}"
                inputs.append(src)
            args.append(names[src.label])
        names[node.out_data_anchors[0].label] = f"t{k}"
        steps.append(AscStep(node.type, tuple(args), f"t{k}",
                             kernel_attrs(node.op_desc)).encode())
    outputs = [node for node in group
               if any(p.owner not in members for p in node.out_data_anchors[0].peers)]
    name = graph.unique_name(f"autofuse_{n}_{'_'.join(node.type for node in group)}")
    op = OpDesc(name, ASC_BACKEND, len(inputs), len(outputs), {
        ASC_GRAPH: steps, ASC_OUTPUTS: [f"t{group.index(o)}" for o in outputs],
        ASC_OPSET: graph_opset(graph),
        ATTR_NAME_DATA_DUMP_ORIGIN_OP_NAMES: [node.name for node in group]})
    for k, src in enumerate(inputs):
        op.update_input_desc(k, src.owner.op_desc.output_descs[src.idx])
    for k, node in enumerate(outputs):
        op.update_output_desc(k, node.op_desc.output_descs[0])
        op.output_names[k] = node.op_desc.output_names[0]
    fused = graph.add_node(op)
    for k, src in enumerate(inputs):
        GraphUtils.add_edge(src, fused.in_data_anchor(k))
    for k, node in enumerate(outputs):
        for peer in list(node.out_data_anchors[0].peers):
            if peer.owner not in members:
                GraphUtils.replace_edge_src(node.out_data_anchors[0], peer,
                                            fused.out_data_anchor(k))
    for node in group:   # an ordering edge into or out of the group now binds the fused node
        for pred in node.in_control_nodes():
            if pred not in members:
                GraphUtils.add_edge(pred.out_control_anchor, fused.in_control_anchor)
        for succ in node.out_control_nodes():
            if succ not in members:
                GraphUtils.add_edge(fused.out_control_anchor, succ.in_control_anchor)
    for node in reversed(group):
        GraphUtils.remove_node(node)
    return fused
