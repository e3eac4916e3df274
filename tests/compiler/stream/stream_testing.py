"""Shared by the stream tests: hand-built graphs with engines set by hand, the light models
compiled, and a host executor that steps over the RTS nodes the stream build adds."""
from __future__ import annotations

from pathlib import Path

import onnx

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.compiler.stream.stream_utils import stream_of
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


def ai_core_then(name: str, op_type: str, engine: str, arity: int = 1) -> Builder:
    """x -> a -> <name>: an AI Core node a feeding one of another type and engine (a given
    ``arity`` times)."""
    g = Builder()
    g.data("x")
    g.add("a", inputs=["x"])
    g.add(name, op_type, engine, inputs=["a"] * arity)
    return g


def between(name: str, op_type: str, engine: str, arity: int = 1) -> Builder:
    """x -> a -> <name> -> b -> out: one node of another type and engine between AI Core ones."""
    g = ai_core_then(name, op_type, engine, arity)
    g.add("b", inputs=[name])
    g.output("b")
    return g


def triangle(names: tuple[str, str, str], stream_ids: tuple[int, int, int]) -> Builder:
    """first -> second, and both -> third, each node on its hand-set stream."""
    first, second, third = names
    g = Builder()
    g.add(first, stream_id=stream_ids[0])
    g.add(second, inputs=[first], stream_id=stream_ids[1])
    g.add(third, inputs=[first, second], stream_id=stream_ids[2])
    return g


def if_with_body() -> tuple[Builder, Builder]:
    """x -> a -> if -> out, and the If's body "then" holding only its Data bx (parent input 0);
    the graph's builder and the body's, for the caller to fill the body."""
    g = Builder()
    g.data("x")
    g.add("a", inputs=["x"])
    cond = g.add("if", "If", GE_LOCAL, inputs=["a"])
    g.output("if")
    body = Builder("then", parent=cond)
    body.data("bx", parent_node_index=0)
    return g, body


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

