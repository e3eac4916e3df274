"""DimensionAdjustPass (GE's dimension_adjust_pass.cc): Squeeze, Unsqueeze and ExpandDims on a
static shape only relabel dims, which the tensor descs can carry.

GE deletes them outright: its device memory is flat and every kernel reads shapes from the descs.
Our kernels compute on numpy arrays whose own shape the next kernel sees, so deleting one would
change the numbers. Instead each becomes a Reshape to its inferred static shape: a GE-local op
that launches no kernel and reuses its input's memory; ReshapeRemovePass then removes it, and
ReshapeRecoveryPass puts one Reshape back where the shapes on an edge still differ.
"""
from __future__ import annotations

import numpy as np

from ge_core.graph import Node, OpDesc
from ge_core.passes.pass_utils import make_const, replace_node, static_dims
from ge_core.passes.rewrite_pass import RewritePass


def _to_reshape(pass_: RewritePass, node: Node) -> bool:
    src = node.in_data_anchors[0].peer
    in_desc, out_desc = node.op_desc.input_descs[0], node.op_desc.output_descs[0]
    dims = static_dims(out_desc)
    if src is None or static_dims(in_desc) is None or dims is None:
        return False
    graph = node.graph
    shape = make_const(graph, f"{node.name}_shape", np.array(dims, np.int64))
    op = OpDesc(graph.unique_name(f"{node.name}_reshape"), "Reshape", 2, 1)
    op.input_descs = [in_desc, shape.op_desc.output_descs[0]]
    op.output_descs, op.output_names = [out_desc], node.op_desc.output_names[:1]
    reshape = graph.add_node(op)
    src.link_to(reshape.in_data_anchors[0])
    shape.out_data_anchors[0].link_to(reshape.in_data_anchors[1])
    replace_node(pass_, node, [reshape.out_data_anchors[0]], [shape, reshape])
    return True


class DimensionAdjustPass(RewritePass):
    name = "DimensionAdjustPass"
    rules = (
        # Squeeze / Unsqueeze / ExpandDims(x: static) -> Reshape(x, Const(out dims))
        (("Squeeze", "Unsqueeze", "ExpandDims"), _to_reshape),
    )
