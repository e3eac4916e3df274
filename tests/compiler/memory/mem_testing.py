"""Shared by the memory tests: hand-built graphs with hand-set streams (the stream allocator
sets them in the real build), and light models through the compile pipeline."""
from __future__ import annotations

from pathlib import Path

import onnx

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.compiler.memory import MemoryPlan, MemRow
from ge_core.graph import ComputeGraph, GeShape, GeTensorDesc, GraphUtils, Node, OpDesc
from ge_core.graph.attr_names import STREAM_ID
from ge_core.graph.types import DataType
from ge_core.parser import parse_onnx

LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
MODELS = sorted(p.stem.removeprefix("light_") for p in LIGHT.glob("light_*.onnx"))
BLOCK = 512          # MEM_ALIGN_SIZE
ONE_BLOCK = (120,)   # f32: 480 bytes -> tensor_size 512, exactly one aligned block


class GraphBuilder:
    def __init__(self, name: str = "g") -> None:
        self.graph = ComputeGraph(name)

    def node(self, name: str, type: str, *inputs: Node | tuple[Node, int],
             shape: tuple[int, ...] = ONE_BLOCK, outputs: int = 1, stream: int = 0,
             **attrs) -> Node:
        op = OpDesc(name, type, len(inputs), outputs, attrs)
        op.output_descs = [GeTensorDesc(GeShape(tuple(shape)), DataType.DT_FLOAT)] * outputs
        node = self.graph.add_node(op)
        for k, src in enumerate(inputs):
            src_node, idx = src if isinstance(src, tuple) else (src, 0)
            GraphUtils.add_edge(src_node.out_data_anchor(idx), node.in_data_anchor(k))
            op.input_descs[k] = src_node.op_desc.output_descs[idx]
        op.set_attr(STREAM_ID, stream)
        return node

    def data(self, name: str = "x", shape: tuple[int, ...] = ONE_BLOCK, index: int = 0) -> Node:
        return self.node(name, "Data", shape=shape, stream=-1, index=index)

    def output(self, *inputs: Node | tuple[Node, int]) -> Node:
        return self.node("out", "NetOutput", *inputs, outputs=0, stream=-1)

    def control(self, src: Node, dst: Node) -> None:
        GraphUtils.add_edge(src.out_control_anchor, dst.in_control_anchor)


def chain(n: int, stream: int = 0) -> GraphBuilder:
    """x -> op1 -> ... -> opN -> NetOutput, every tensor one block."""
    b = GraphBuilder()
    prev = b.data()
    for i in range(1, n + 1):
        prev = b.node(f"op{i}", "Relu", prev, stream=stream)
    b.output(prev)
    return b


def relus(*edges: tuple[str, str]) -> tuple[GraphBuilder, dict[str, Node]]:
    """Data x, then one-block Relus given as (name, input) in order; the builder and its nodes
    by name (x among them)."""
    b = GraphBuilder()
    nodes = {"x": b.data()}
    for name, src in edges:
        nodes[name] = b.node(name, "Relu", nodes[src])
    return b, nodes


def relu_then_reshape() -> tuple[GraphBuilder, Node, Node, Node]:
    """x -> a (Relu, stream 0) -> r (Reshape by a Const shape, both GE-local: no stream);
    the builder and x, a, r."""
    b, n = relus(("a", "x"))
    shape = b.node("shape", "Const", shape=(1,), stream=-1)
    r = b.node("r", "Reshape", n["a"], shape, stream=-1)
    return b, n["x"], n["a"], r


def light_graph(model: str, stream: int = 0) -> ComputeGraph:
    graph = compile_graph(parse_onnx(str(LIGHT / f"light_{model}.onnx")),
                          CompileOptions(dump=None)).graph
    for node in graph:
        node.op_desc.set_attr(STREAM_ID, stream)
    return graph


def overlaps(a: MemRow, b: MemRow) -> bool:
    return a.offset < b.end and b.offset < a.end


def offset(plan: MemoryPlan, label: str) -> int:
    return plan.row(label).offset
