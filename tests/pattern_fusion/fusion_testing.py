"""Shared by the fusion tests: hand-built graphs (ops by name, shapes by InferShape) and the
check that a fusion kept the numbers."""
from __future__ import annotations

import numpy as np

from ge_core.executor import HostExecutor
from ge_core.graph import (ComputeGraph, DataType, GeShape, GeTensorDesc, GraphUtils, Node,
                           OpDesc, OutDataAnchor, validate)
from ge_core.ops import infer_graph
from ge_core.passes import GraphPass
from ge_core.passes.pass_utils import make_const
from npu_emu.base.trace import TraceBus

RNG_SEED = 0


class GraphBuilder:
    def __init__(self, opset: int | None = None, bus: TraceBus | None = None) -> None:
        self.graph = ComputeGraph("g", bus or TraceBus(),
                                  attrs=None if opset is None else {"opset": opset})
        self.rng = np.random.default_rng(RNG_SEED)
        self.feeds: list[np.ndarray] = []

    def data(self, name: str, shape: tuple[int, ...]) -> OutDataAnchor:
        """A float32 graph input, fed a seeded normal sample."""
        op = OpDesc(name, "Data", 0, 1, {"index": len(self.feeds)})
        op.output_descs[0] = GeTensorDesc(GeShape(tuple(shape)), DataType.DT_FLOAT)
        self.feeds.append(self.rng.standard_normal(shape).astype(np.float32))
        return self.graph.add_node(op).out_data_anchors[0]

    def const(self, name: str, value) -> OutDataAnchor:
        return make_const(self.graph, name, np.asarray(value)).out_data_anchors[0]

    def weight(self, name: str, shape: tuple[int, ...], low: float | None = None) -> OutDataAnchor:
        """A float32 Const: normal, or uniform in [low, low + 1) (a BN's scale or variance)."""
        value = self.rng.standard_normal(shape) if low is None else self.rng.random(shape) + low
        return self.const(name, value.astype(np.float32))

    def op(self, op_type: str, name: str, *inputs: OutDataAnchor | None, outputs: int = 1,
           **attrs) -> OutDataAnchor:
        """The node's output 0 (the others are on its node)."""
        node = self.graph.add_node(OpDesc(name, op_type, len(inputs), outputs, attrs))
        for i, src in enumerate(inputs):
            if src is None:
                node.op_desc.update_input_desc(i, GeTensorDesc(absent=True))
            else:
                GraphUtils.add_edge(src, node.in_data_anchors[i])
        return node.out_data_anchors[0]

    def bn(self, name: str, x: OutDataAnchor, channels: int, **attrs) -> OutDataAnchor:
        params = [self.weight(f"{name}_scale", (channels,), 0.5),
                  self.weight(f"{name}_bias", (channels,)),
                  self.weight(f"{name}_mean", (channels,)),
                  self.weight(f"{name}_var", (channels,), 0.5)]
        return self.op("BatchNormalization", name, x, *params, **attrs)

    def output(self, *srcs: OutDataAnchor) -> ComputeGraph:
        out = self.graph.add_node(OpDesc("out", "NetOutput", len(srcs), 0))
        for i, src in enumerate(srcs):
            GraphUtils.add_edge(src, out.in_data_anchors[i])
        infer_graph(self.graph)
        validate(self.graph)
        return self.graph


def node(graph: ComputeGraph, name: str) -> Node:
    found = graph.find_node(name)
    assert found is not None, f"no node {name} in {graph.name}"
    return found


def run_and_compare(b: GraphBuilder, *passes: GraphPass, rtol: float = 0.0,
                    atol_scale: float = 0.0) -> list[int]:
    """Run ``passes`` on the built graph; the graph validates after each, and its outputs stay
    within rtol and ``atol_scale`` x the output's largest magnitude (0, 0: bit for bit).
    Returns the number of rewrites each pass made."""
    want = HostExecutor(b.graph).run(b.feeds)
    counts = []
    for p in passes:
        p.run(b.graph)
        validate(b.graph)
        counts.append(len(p.fused))
    got = HostExecutor(b.graph).run(b.feeds)
    assert list(got) == list(want)
    for k in want:
        assert got[k].dtype == want[k].dtype
        atol = atol_scale * float(np.abs(want[k]).max())
        np.testing.assert_allclose(got[k], want[k], rtol=rtol, atol=atol, err_msg=k)
    return counts
