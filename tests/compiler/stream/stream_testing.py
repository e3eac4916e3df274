"""Shared by the stream tests: hand-built graphs with engines set by hand, the light models
compiled, and a host executor that steps over the RTS nodes the stream build adds."""
from __future__ import annotations

from pathlib import Path

import onnx

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.compiler.stream.stream_utils import stream_of
from ge_core.executor import HostExecutor
from ge_core.graph import ComputeGraph, GraphUtils, Node, OpDesc
from ge_core.parser import parse_onnx

AICORE, VECTOR, AICPU = "AIcoreEngine", "VectorEngine", "DNN_VM_AICPU"
GE_LOCAL, HCCL = "DNN_VM_GE_LOCAL", "DNN_VM_HCCL"
LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
LIGHT_MODELS = sorted(p.stem.removeprefix("light_") for p in LIGHT.glob("light_*.onnx"))
TINY_CNN = Path(__file__).resolve().parents[3] / "sample_models" / "tiny_cnn.onnx"
RTS_NO_DATA = frozenset({"Send", "Recv", "SendNotify", "RecvNotify", "StreamActive"})


class Builder:
    """Nodes with one output each, wired by name: ``add("conv", inputs=["x"])``."""

    def __init__(self, name: str = "g", parent: Node | None = None) -> None:
        self.graph = ComputeGraph(name)
        if parent is not None:
            parent.graph.root.add_subgraph(parent, self.graph)

    def add(self, name: str, op_type: str = "Relu", engine: str = AICORE, inputs=(), ctrl=(),
            **attrs) -> Node:
        outputs = 0 if op_type == "NetOutput" else 1
        node = self.graph.add_node(OpDesc(name, op_type, len(inputs), outputs,
                                          {"engine": engine, **attrs}))
        for i, src in enumerate(inputs):
            GraphUtils.add_edge(self.graph.find_node(src).out_data_anchor(0),
                                node.in_data_anchor(i))
        for src in ctrl:
            GraphUtils.add_edge(self.graph.find_node(src).out_control_anchor,
                                node.in_control_anchor)
        return node

    def data(self, name: str = "x", **attrs) -> Node:
        return self.add(name, "Data", GE_LOCAL, **attrs)

    def output(self, *inputs: str) -> Node:
        return self.add("NetOutput", "NetOutput", GE_LOCAL, inputs=inputs)


def streams(graph: ComputeGraph) -> dict[str, int]:
    return {n.name: stream_of(n) for n in graph}


def nodes_of_type(graph: ComputeGraph, op_type: str) -> list[Node]:
    return [n for n in graph.all_nodes() if n.type == op_type]


def compiled(model: str) -> ComputeGraph:
    """A light model (by its short name) or a path, through compile_graph."""
    path = TINY_CNN if model == "tiny_cnn" else LIGHT / f"light_{model}.onnx"
    graph = parse_onnx(path)
    compile_graph(graph, CompileOptions(dump=None))
    return graph


class SyncTolerantExecutor(HostExecutor):
    """Until the host executor steps over RTS nodes itself: they carry no data, only order."""

    def _run_node(self, node, ins, args, parent_args):
        if node.type in RTS_NO_DATA:
            return ()
        return super()._run_node(node, ins, args, parent_args)
