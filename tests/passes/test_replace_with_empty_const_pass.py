"""ReplaceWithEmptyConstPass: a node whose outputs are all empty tensors becomes an empty Const,
whatever its inputs; a node with a non-empty output stays."""
import numpy as np
from onnx import helper

from ge_core.passes.pass_utils import const_value
from ge_core.passes.replace_with_empty_const_pass import ReplaceWithEmptyConstPass
from pass_testing import check_pass, model, run_pass, types


def test_an_empty_tensor_output_becomes_a_const():
    # x[0:0] is [0, 3] whatever x holds; the Concat of it with x is not empty and stays.
    g = model([helper.make_node("Slice", ["x", "zero", "zero"], ["e"], name="slice"),
               helper.make_node("Concat", ["e", "x"], ["y"], axis=0)],
              {"x": [2, 3]}, {"y": [2, 3]}, {"zero": np.array([0], np.int64)})
    assert check_pass(g, ReplaceWithEmptyConstPass())
    assert types(g) == {"Data": 1, "Const": 1, "Concat": 1, "NetOutput": 1}
    assert const_value(g.find_node("e")).shape == (0, 3)


def test_a_non_empty_output_stays():
    g = model([helper.make_node("Relu", ["x"], ["y"], name="relu")], {"x": [2, 3]}, {"y": [2, 3]})
    assert not run_pass(g, ReplaceWithEmptyConstPass())
    assert g.find_node("relu")
