"""IdentityPass: Identity, and Dropout at inference with its mask unread, go; their readers
read the input, after the same control predecessors; subgraph Data and NetOutput stay intact."""
import numpy as np
from onnx import TensorProto, helper

from ge_core.graph import GraphUtils, OpDesc
from ge_core.passes.identity_pass import IdentityPass
from pass_testing import (COND, check_both_branches, check_pass, if_node, model, node_of, run_pass,
                          types)


def test_an_identity_chain_goes_and_keeps_its_control_order():
    g = model([helper.make_node("Identity", ["x"], ["a"], name="id1"),
               helper.make_node("Identity", ["a"], ["b"], name="id2"),
               helper.make_node("Relu", ["b"], ["y"], name="relu")],
              {"x": [3]}, {"y": [3]})
    first = g.add_node(OpDesc("first", "Neg", 1, 1))
    GraphUtils.add_edge(g.find_node("x").out_data_anchor(0), first.in_data_anchor(0))
    GraphUtils.add_edge(first.out_data_anchor(0), g.output_node.add_input())
    GraphUtils.add_edge(first.out_control_anchor, g.find_node("id2").in_control_anchor)
    assert check_pass(g, IdentityPass())
    relu = g.find_node("relu")
    assert relu.in_data_nodes() == [g.find_node("x")] and relu.in_control_nodes() == [first]
    assert "Identity" not in types(g)


def test_an_inference_dropout_goes_with_its_ratio_input():
    g = model([helper.make_node("Dropout", ["x", "ratio"], ["d"]),
               helper.make_node("Relu", ["d"], ["y"])],
              {"x": [3]}, {"y": [3]}, {"ratio": np.array(0.3, np.float32)})
    check_pass(g, IdentityPass())
    assert types(g) == {"Data": 1, "Relu": 1, "NetOutput": 1}


def test_a_dropout_whose_mask_is_read_or_in_training_stays():
    mask_read = model([helper.make_node("Dropout", ["x"], ["y", "mask"])],
                      {"x": [3]}, {"y": [3], "mask": (TensorProto.BOOL, [3])})
    training = model([helper.make_node("Dropout", ["x", "ratio", "train"], ["y"])],
                     {"x": [3]}, {"y": [3]},
                     {"ratio": np.array(0.5, np.float32), "train": np.array(True)})
    for g in (mask_read, training):
        assert not run_pass(g, IdentityPass())


def test_an_identity_in_a_branch_leaves_its_data_and_netoutput_linked():
    g = model([if_node([helper.make_node("Identity", ["x"], ["o"])],
                       [helper.make_node("Neg", ["x"], ["o"])], [2])],
              {"cond": COND, "x": [2]}, {"y": [2]})
    check_both_branches(g, IdentityPass(), x=np.array([1, 2], np.float32))
    then_graph = g.subgraphs[0]
    assert then_graph.output_node.in_data_nodes() == [node_of(then_graph, "Data")]
