"""Shared by the pass tests: tiny ONNX models through the parser, the pass-equivalence check (the
host executor gives the same outputs before and after), and the light models' shipped outputs."""
from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ge_core.executor import HostExecutor, random_feeds
from ge_core.graph import ComputeGraph, validate
from ge_core.parser import parse_onnx
from ge_core.passes import BaseNodePass, GEPass, GraphPass, PassManager

LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
F32 = TensorProto.FLOAT
COND = (TensorProto.BOOL, [])  # the If condition's input spec


def value_info(name: str, spec) -> onnx.ValueInfoProto:
    """spec: a float32 shape as a list (None: unknown), or a tuple (elem_type, shape)."""
    elem, shape = spec if isinstance(spec, tuple) else (F32, spec)
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes: list, inputs: dict, outputs: dict, inits: dict | None = None,
          opset: int = 13) -> ComputeGraph:
    graph = helper.make_graph(nodes, "g", [value_info(k, v) for k, v in inputs.items()],
                              [value_info(k, v) for k, v in outputs.items()],
                              [numpy_helper.from_array(np.asarray(v), k)
                               for k, v in (inits or {}).items()])
    return parse_onnx(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]))


def run_pass(graph: ComputeGraph, *passes: GraphPass | BaseNodePass) -> bool:
    """One GraphPass through a PassManager (graph, then subgraphs), or node passes in one GEPass
    run; whether the graph changed."""
    before = graph.edits.snapshot()
    if isinstance(passes[0], GraphPass):
        PassManager("test").add_pass(passes[0].name, passes[0]).run(graph)
    else:
        GEPass(graph, passes).run()
    return graph.edits.since(before).any


def check_pass(graph: ComputeGraph, *passes, feeds: dict | None = None) -> bool:
    """run_pass, checking the graph validates after it and computes exactly what it did."""
    validate(graph)
    feeds = random_feeds(graph) if feeds is None else feeds
    want = HostExecutor(graph).run(feeds)
    changed = run_pass(graph, *passes)
    validate(graph)
    got = HostExecutor(graph).run(feeds)
    assert list(got) == list(want)
    for name in want:
        assert (got[name].dtype, got[name].shape) == (want[name].dtype, want[name].shape), name
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
    return changed


def if_node(then_nodes: list, else_nodes: list, shape: list, out: str = "y") -> onnx.NodeProto:
    """y = If(cond): each branch computes tensor "o" (float32 of ``shape``) from the enclosing
    graph's values, which the parser turns into captured inputs of the If node."""
    branches = {f"{name}_branch": helper.make_graph(nodes, name, [], [value_info("o", shape)])
                for name, nodes in (("then", then_nodes), ("else", else_nodes))}
    return helper.make_node("If", ["cond"], [out], **branches)


def check_both_branches(graph: ComputeGraph, *passes, **feeds: np.ndarray) -> None:
    for cond in (True, False):
        check_pass(graph, *passes, feeds={"cond": np.array(cond), **feeds})


def types(graph: ComputeGraph) -> Counter:
    return Counter(n.type for n in graph)


def node_of(graph: ComputeGraph, op_type: str):
    (node,) = [n for n in graph if n.type == op_type]
    return node


def light(name: str) -> tuple[ComputeGraph, np.ndarray, np.ndarray]:
    """A light model's graph, the backend runner's dummy input and the shipped output."""
    graph = parse_onnx(LIGHT / f"light_{name}.onnx")
    dims = graph.input_nodes[0].op_desc.output_descs[0].shape.dims
    n = math.prod(dims)
    x = (np.arange(n).reshape(dims) / n).astype(np.float32)
    expected = numpy_helper.to_array(onnx.load_tensor(str(LIGHT / f"light_{name}_output_0.pb")))
    return graph, x, expected
