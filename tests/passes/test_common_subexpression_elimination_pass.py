"""CommonSubexpressionEliminationPass: same type, attrs (tensors by value), producers and control
inputs -> one node; chains collapse in one run; Data, NetOutput and random ops never merge."""
import numpy as np
from onnx import TensorProto, helper

from ge_core.graph import GraphUtils, dump_graph
from ge_core.passes.common_subexpression_elimination_pass import CommonSubexpressionEliminationPass
from pass_testing import check_pass, model, run_pass, types

CSE = CommonSubexpressionEliminationPass


def test_a_duplicated_chain_collapses_in_one_run():
    g = model([helper.make_node("Relu", ["x"], ["r1"], name="relu1"),
               helper.make_node("Relu", ["x"], ["r2"], name="relu2"),
               helper.make_node("Exp", ["r1"], ["e1"], name="exp1"),
               helper.make_node("Exp", ["r2"], ["e2"], name="exp2"),
               helper.make_node("Add", ["e1", "e2"], ["y"], name="add")],
              {"x": [2]}, {"y": [2]})
    assert check_pass(g, CSE())
    assert dump_graph(g) == """\
graph g (5 nodes)
  %x : Data() -> f32[2] => [%relu1:0] {index=0}
  %relu1 : Relu(%x:0) -> f32[2] => [%exp1:0]
  %exp1 : Exp(%relu1:0) -> f32[2] => [%add:0,%add:1]
  %add : Add(%exp1:0, %exp1:0) -> f32[2] => [%NetOutput:0]
  %NetOutput : NetOutput(%add:0) -> ()
"""


def test_attrs_decide_tensor_attrs_by_value():
    fill = [helper.make_tensor("v", TensorProto.FLOAT, [1], [v]) for v in (2.0, 2.0, 3.0)]
    g = model([helper.make_node("ConstantOfShape", ["s"], [f"c{i}"], value=t)
               for i, t in enumerate(fill)]
              + [helper.make_node("LeakyRelu", ["x"], [f"l{i}"], alpha=a)
                 for i, a in enumerate((0.1, 0.2))],
              {"s": (TensorProto.INT64, [1]), "x": [2]},
              {"c0": None, "c1": None, "c2": None, "l0": [2], "l1": [2]})
    check_pass(g, CSE())
    assert types(g)["ConstantOfShape"] == 2 and types(g)["LeakyRelu"] == 2
    assert g.output_node.in_data_nodes()[:3] == [g.find_node("ConstantOfShape_0")] * 2 + \
        [g.find_node("ConstantOfShape_2")]


def test_different_control_inputs_keep_nodes_apart():
    g = model([helper.make_node("Relu", ["x"], [f"r{i}"], name=f"relu{i}") for i in range(2)]
              + [helper.make_node("Neg", ["x"], ["n"], name="neg")],
              {"x": [2]}, {"r0": [2], "r1": [2], "n": [2]})
    GraphUtils.add_edge(g.find_node("neg").out_control_anchor,
                        g.find_node("relu1").in_control_anchor)
    assert not run_pass(g, CSE())


def test_random_ops_and_graph_io_never_merge():
    g = model([helper.make_node("Dropout", ["x", "ratio", "train"], [f"d{i}"]) for i in range(2)],
              {"x": [2]}, {"d0": [2], "d1": [2]},
              {"ratio": np.array(0.5, np.float32), "train": np.array(True)})
    assert not run_pass(g, CSE())
