"""ConstantFoldingPass (GE's constant_folding_pass.cc, a PotentialFoldingPass): a node whose every
data input is a Const becomes one Const per used output, computed by the host kernels at the
graph's opset (an absent optional input counts as known).

A node whose outputs are all empty tensors is ReplaceWithEmptyConstPass's (GE's NeedIgnorePass);
Shape and Size of a static input, which read no data, fold in DimensionComputePass, which runs
before this pass on each node. Never folded: graph inputs/outputs, Consts, control flow (ops owning
subgraphs), random ops, ops without a kernel, ops making a sequence or optional (no Const holds
one), and kernels that raise (the error is left to run time, which names the node).

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
from ge_core.passes.pass_utils import RANDOM_OPS, const_value, graph_opset, static_dims
from ge_core.passes.potential_folding_pass import PotentialFoldingPass, Values, all_outputs_empty
from npu_emu.op_impl import get_kernel, has_kernel

FOLD_LIMIT_BYTES = 64 << 20


class ConstantFoldingPass(PotentialFoldingPass):
    name = "ConstantFoldingPass"

    def need_ignore(self, node: Node) -> bool:
        return node.type in RANDOM_OPS or all_outputs_empty(node)

    def compute_potential_weight(self, node: Node) -> Values | None:
        return _compute(node)


def _compute(node: Node) -> Values | None:
    inputs = _known_inputs(node)
    if inputs is None or not has_kernel(node.type):
        return None
    budget = max(FOLD_LIMIT_BYTES, sum(x.nbytes for x in inputs if x is not None))
    if sum(_nbytes(d) for d in node.op_desc.output_descs) > budget:
        return None  # known too big before computing it
    return run_kernel(node, inputs, budget)


def run_kernel(node: Node, inputs: list[np.ndarray | None],
               budget: float = math.inf) -> Values | None:
    """The node's host kernel on ``inputs``; None when it raises, falls short of the node's
    outputs or passes ``budget`` bytes."""
    try:
        outs = get_kernel(node.type, graph_opset(node.graph))(*inputs, **kernel_attrs(node.op_desc))
    except Exception:  # noqa: BLE001 -- left to run time, whose error names the node
        return None
    outs = [np.asarray(o, order="C") for o in outs]  # a Const owns its bytes: no broadcast views
    if len(outs) < len(node.out_data_anchors) or sum(o.nbytes for o in outs) > budget:
        return None
    return outs


def _known_inputs(node: Node) -> list[np.ndarray | None] | None:
    values: list[np.ndarray | None] = []
    for anchor, desc in zip(node.in_data_anchors, node.op_desc.input_descs):
        if anchor.peer is None:
            if not desc.absent:
                return None
            values.append(None)
            continue
        # A gear's weights are Data reading the root's Consts (ChangeConstToData); seen through,
        # a gear folds its shape arithmetic as a fixed-shape build does.
        value = const_value(GraphUtils.get_in_node_cross_subgraph(anchor))
        if value is None:
            return None
        values.append(value)
    return values


def _nbytes(desc: GeTensorDesc) -> int:
    dims = static_dims(desc)
    return 0 if dims is None else math.prod(dims) * _itemsize(desc.dtype)


_ITEMSIZE: dict[DataType, int] = {}   # _nbytes' element sizes (0: no numpy dtype), per dtype


def _itemsize(dtype: DataType) -> int:
    size = _ITEMSIZE.get(dtype)
    if size is None:
        try:
            size = dtype.to_numpy().itemsize
        except TypeError:
            size = 0
        _ITEMSIZE[dtype] = size
    return size
