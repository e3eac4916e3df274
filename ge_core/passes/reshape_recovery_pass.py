"""ReshapeRecoveryPass (GE's reshape_recovery_pass.cc, in OptimizeStage1_3): where a producer's
static output shape and its consumer's static input shape differ (ReshapeRemovePass removed the
Reshape between them), a Reshape to the consumer's shape goes back in, one per edge; Reshapes to
the same shape share their shape Const. A dynamic edge into NetOutput instead takes the
producer's shape: the output's shape must be the one run time refreshes.

    x:f32[2,3] -> y (input desc f32[6])        x -> Reshape(x, Const[6]) -> y
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ge_core.graph import ComputeGraph, GraphUtils, Node, OpDesc
from ge_core.graph.anchor import InDataAnchor, OutDataAnchor
from ge_core.graph.compute_graph import NETOUTPUT
from ge_core.graph.ge_tensor import GeTensorDesc
from ge_core.passes.graph_pass import GraphPass
from ge_core.passes.pass_utils import make_const


class ReshapeRecoveryPass(GraphPass):
    name = "ReshapeRecoveryPass"

    def run(self, graph: ComputeGraph) -> bool:
        shape_consts: dict[tuple[int, ...], Node] = {}
        inserted = 0
        for node in list(graph):
            for anchor in node.out_data_anchors:
                src = node.op_desc.output_descs[anchor.idx]
                for peer in list(anchor.peers):
                    dst = peer.owner.op_desc.input_descs[peer.idx]
                    dynamic = any(d < 0 for d in (*src.shape.dims, *dst.shape.dims))
                    if dynamic and peer.owner.type == NETOUTPUT:
                        peer.owner.op_desc.update_input_desc(peer.idx,
                                                             replace(dst, shape=src.shape))
                    elif not dynamic and src.shape.dims != dst.shape.dims:
                        name = graph.unique_name(f"Reshape_ReshapeRecoveryPass_{inserted}")
                        _insert_reshape(graph, name, anchor, peer, src, dst, shape_consts)
                        inserted += 1
        return inserted > 0


def _insert_reshape(graph: ComputeGraph, name: str, anchor: OutDataAnchor, peer: InDataAnchor,
                    src: GeTensorDesc, dst: GeTensorDesc,
                    shape_consts: dict[tuple[int, ...], Node]) -> None:
    dims = dst.shape.dims
    shape = shape_consts.get(dims)
    if shape is None:
        shape = shape_consts[dims] = make_const(graph, f"{name}_shape", np.array(dims, np.int64))
    op = OpDesc(name, "Reshape", 2, 1)
    op.input_descs = [src, shape.op_desc.output_descs[0]]
    op.output_descs = [dst]
    reshape = graph.add_node(op)
    GraphUtils.insert_node_between(anchor, peer, reshape)
    shape.out_data_anchors[0].link_to(reshape.in_data_anchors[1])
