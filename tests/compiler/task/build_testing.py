"""Hand-made build annotations for task and OM tests, standing in for the stream allocator and
the memory assigner: every task-launching node on stream 0, GE-local nodes on none (-1), each
output a fresh aligned feature-map region, each Const a fresh weight region, each input its
producer's output address (-1 for an optional input left out, as the memory assigner
writes it). Naive, never overlapping, and enough for tasks and OMs to be real."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.compiler.engine_placer import EnginePlacer
from ge_core.compiler.task import task_count, task_order
from ge_core.graph import ComputeGraph, Node, OpDesc
from ge_core.graph.attr_names import ATTR_NAME_WEIGHTS, INPUT_OFFSET, OUTPUT_OFFSET, STREAM_ID
from ge_core.om.logical_memory import FEATURE_MAP_BASE, WEIGHT_BASE, align, tensor_size
from ge_core.om.weights import CONST_TYPES
from ge_core.parser import parse_onnx

NO_ADDRESS = -1  # the memory assigner's input offset for an optional input left out
LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
LIGHT_MODELS = sorted(p.stem.removeprefix("light_") for p in LIGHT.glob("light_*.onnx"))


def place_unplaced(graph: ComputeGraph) -> None:
    """Nodes the fusion passes create after EnginePlacer ran have no engine yet (a pipeline
    gap); place them as EnginePlacer would."""
    placer = EnginePlacer()
    for node in graph.all_nodes():
        if node.op_desc.get_attr("engine") is None:
            node.op_desc.set_attr("engine", placer.place(node).name)


def annotate_build(graph: ComputeGraph) -> ComputeGraph:
    place_unplaced(graph)
    fm, weights = FEATURE_MAP_BASE, WEIGHT_BASE
    for node in task_order(graph):
        op = node.op_desc
        op.set_attr(STREAM_ID, 0 if task_count(node) and node.type != "NetOutput" else -1)
        op.set_attr(INPUT_OFFSET, [a.peer.owner.op_desc.get_attr(OUTPUT_OFFSET)[a.peer.idx]
                                   if a.peer is not None else NO_ADDRESS
                                   for a in node.in_data_anchors])
        offsets = []
        for desc in op.output_descs:
            if node.type in CONST_TYPES:
                offsets.append(weights)
                weights += align(op.get_attr(ATTR_NAME_WEIGHTS).data.nbytes)
            else:
                offsets.append(fm)
                fm += align(tensor_size(desc))
        op.set_attr(OUTPUT_OFFSET, offsets)
    return graph


def compiled_light(name: str) -> ComputeGraph:
    graph = parse_onnx(LIGHT / f"light_{name}.onnx")
    compile_graph(graph, CompileOptions(dump=None))
    return annotate_build(graph)


def onnx_graph(nodes: list, inputs: dict, outputs: dict, inits: dict | None = None,
               elem: int = TensorProto.FLOAT, extra_inputs: dict | None = None) -> ComputeGraph:
    """A small ONNX model through the parser and the compile pipeline, engines placed;
    ``inputs``/``outputs`` map names to shapes of type ``elem``, ``extra_inputs`` names to
    (type, shape)."""
    def info(name: str, shape: list[int], type_: int = elem) -> onnx.ValueInfoProto:
        return helper.make_tensor_value_info(name, type_, shape)

    g = helper.make_graph(nodes, "g", [info(k, v) for k, v in inputs.items()]
                          + [info(k, shape, t) for k, (t, shape) in (extra_inputs or {}).items()],
                          [info(k, v) for k, v in outputs.items()],
                          [numpy_helper.from_array(np.asarray(v), k)
                           for k, v in (inits or {}).items()])
    graph = parse_onnx(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]))
    compile_graph(graph, CompileOptions(dump=None))
    place_unplaced(graph)
    return graph


def if_graph() -> ComputeGraph:
    """y = If(c, then: -x, else: |x|) + x, bodies reading x from the root graph."""
    def body(name: str, op: str) -> onnx.GraphProto:
        out = helper.make_tensor_value_info(f"{name}_out", TensorProto.FLOAT, [2])
        return helper.make_graph([helper.make_node(op, ["x"], [f"{name}_out"], name=name)],
                                 name, [], [out])

    return onnx_graph([helper.make_node("If", ["c"], ["i"], name="if",
                                        then_branch=body("then_neg", "Neg"),
                                        else_branch=body("else_abs", "Abs")),
                       helper.make_node("Add", ["i", "x"], ["y"], name="add")],
                      {"x": [2]}, {"y": [2]}, extra_inputs={"c": (TensorProto.BOOL, [])})


def add_rts_node(graph: ComputeGraph, name: str, type: str, after: Node, before: Node,
                 **attrs: object) -> Node:
    """An RTS node (Send, Recv, StreamActive ...) ordered after ``after`` and before ``before``
    by control edges, as the stream allocator inserts them."""
    node = graph.add_node(OpDesc(name, type, attrs={"engine": "DNN_VM_RTS", **attrs}))
    after.out_control_anchor.link_to(node.in_control_anchor)
    node.out_control_anchor.link_to(before.in_control_anchor)
    return node
