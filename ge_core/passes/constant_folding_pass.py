"""ConstantFoldingPass (GE's constant_folding_pass.cc on folding_pass.cc): a node whose value is
known at compile time becomes one Const per used output, computed by the host kernels at the
graph's opset.

A value is known when
- every data input is a Const (an absent optional input counts as known);
- the op reads only its input's shape (Shape, Size) and the input desc's shape is static;
- every output is an empty tensor (a 0 dim): the Const then only carries the shape.
Never folded: graph inputs/outputs, Consts, control flow (ops owning subgraphs), random ops, ops
without a kernel, ops making a sequence or optional (no Const holds one), and kernels that raise
(the error is left to run time, which names the node).
The Consts keep the order the node had: they take its control inputs and its Const inputs' ones.

Size guard: a fold whose outputs pass 64 MiB and outweigh its inputs is skipped. Folding it would
swap a few bytes of graph for a big weight the model file must carry and every load must copy
(VGG-19's fc6 weight, a ConstantOfShape of a 392 MiB shape in the light models, stays a node).
"""
from __future__ import annotations

import math

import numpy as np

from ge_core.graph import GeTensorDesc, GraphUtils, Node
from ge_core.graph.op_desc import kernel_attrs
from ge_core.graph.types import DataType
from ge_core.passes.base_node_pass import BaseNodePass
from ge_core.passes.pass_utils import (RANDOM_OPS, const_value, graph_opset, make_const, must_keep,
                                       replace_node, static_dims)
from npu_emu.kernels import get_kernel, has_kernel

FOLD_LIMIT_BYTES = 64 << 20
SHAPE_READERS = frozenset({"Shape", "Size"})  # read their input's shape, never its data
UNFOLDABLE = RANDOM_OPS | {"Const"}

Values = list[np.ndarray | None]


class ConstantFoldingPass(BaseNodePass):
    name = "ConstantFoldingPass"

    def run(self, node: Node) -> None:
        if must_keep(node) or node.type in UNFOLDABLE or any(
                d.dtype == DataType.DT_VARIANT for d in node.op_desc.output_descs):
            return
        values = _empty_outputs(node) or _compute(node)
        if values is None:
            return
        consts = [_const(node, i, v) if anchor.peers else None
                  for i, (anchor, v) in enumerate(zip(node.out_data_anchors, values))]
        new = [c for c in consts if c is not None]
        # The value also waited for what its Const inputs wait for (a Const in a branch hangs on
        # the branch's control edge); the node's own control inputs pass on in replace_node.
        waits = [p for n in node.in_data_nodes() if n.type == "Const"
                 for p in n.in_control_anchor.peers]
        for const in new:
            for p in waits:
                p.link_to(const.in_control_anchor)
        replace_node(self, node, [c and c.out_data_anchor(0) for c in consts], new)


def _const(node: Node, idx: int, value: np.ndarray) -> Node:
    # Named after the output's framework tensor (a light model's weight name), else the node.
    tensor = node.op_desc.output_names[idx]
    const = make_const(node.graph, tensor or f"{node.name}_{idx}", value)
    const.op_desc.output_names[0] = tensor
    return const


def _empty_outputs(node: Node) -> Values | None:
    descs = node.op_desc.output_descs
    dims = [static_dims(d) for d in descs]
    if any(d is None or 0 not in d for d in dims):
        return None
    try:
        return [np.zeros(d, desc.dtype.to_numpy()) for d, desc in zip(dims, descs)]
    except TypeError:  # a dtype numpy lacks
        return None


def _compute(node: Node) -> Values | None:
    inputs = _known_inputs(node)
    if inputs is None or not has_kernel(node.type):
        return None
    budget = max(FOLD_LIMIT_BYTES, sum(x.nbytes for x in inputs if x is not None))
    if sum(_nbytes(d) for d in node.op_desc.output_descs) > budget:
        return None  # known too big before computing it
    try:
        outs = get_kernel(node.type, graph_opset(node.graph))(*inputs, **kernel_attrs(node.op_desc))
    except Exception:  # noqa: BLE001 -- left to run time, whose error names the node
        return None
    outs = [np.asarray(o, order="C") for o in outs]  # a Const owns its bytes: no broadcast views
    if len(outs) < len(node.out_data_anchors) or sum(o.nbytes for o in outs) > budget:
        return None
    return outs


def _known_inputs(node: Node) -> Values | None:
    values: Values = []
    for anchor, desc in zip(node.in_data_anchors, node.op_desc.input_descs):
        if anchor.peer is None:
            if not desc.absent:
                return None
            values.append(None)
            continue
        # A gear's weights are Data reading the root's Consts (ChangeConstToData); seen through,
        # a gear folds its shape arithmetic as a fixed-shape build does.
        value = const_value(GraphUtils.get_in_node_cross_subgraph(anchor))
        if value is None and node.type in SHAPE_READERS and (dims := static_dims(desc)) is not None:
            value = np.broadcast_to(np.zeros((), np.uint8), dims)  # a stand-in of that shape
        if value is None:
            return None
        values.append(value)
    return values


def _nbytes(desc: GeTensorDesc) -> int:
    dims = static_dims(desc)
    try:
        return 0 if dims is None else math.prod(dims) * desc.dtype.to_numpy().itemsize
    except TypeError:
        return 0
