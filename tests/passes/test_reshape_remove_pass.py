"""ReshapeRemovePass: a Reshape that keeps the shape goes; a Reshape of a Reshape reads the first
one's input, which then goes unless someone else reads it."""
import numpy as np
from onnx import helper

from ge_core.graph import dump_graph
from ge_core.passes.reshape_remove_pass import ReshapeRemovePass
from pass_testing import check_pass, model, node_of, run_pass, types


def shape(*dims):
    return np.array(dims, np.int64)


def test_a_reshape_to_the_same_shape_goes_with_its_shape_const():
    g = model([helper.make_node("Reshape", ["x", "s"], ["r"]),
               helper.make_node("Relu", ["r"], ["y"], name="relu")],
              {"x": [2, 3]}, {"y": [2, 3]}, {"s": shape(2, -1)})
    assert check_pass(g, ReshapeRemovePass())
    assert types(g) == {"Data": 1, "Relu": 1, "NetOutput": 1}


def test_a_chain_collapses_into_its_last_reshape():
    g = model([helper.make_node("Reshape", ["x", "s1"], ["a"], name="first"),
               helper.make_node("Reshape", ["a", "s2"], ["y"], name="second")],
              {"x": [2, 3, 4]}, {"y": [4, 6]}, {"s1": shape(6, 4), "s2": shape(4, 6)})
    check_pass(g, ReshapeRemovePass())
    assert dump_graph(g) == """\
graph g (4 nodes)
  %x : Data() -> f32[2,3,4] => [%second:0] {index=0}
  %s2 : Const() -> i64[2] => [%second:1] {value=<i64[2] [4,6]>}
  %second : Reshape(%x:0, %s2:0) -> f32[4,6] => [%NetOutput:0]
  %NetOutput : NetOutput(%second:0) -> ()
"""


def test_a_chain_back_to_the_input_shape_vanishes():
    g = model([helper.make_node("Reshape", ["x", "s1"], ["a"]),
               helper.make_node("Reshape", ["a", "s2"], ["b"]),
               helper.make_node("Relu", ["b"], ["y"])],
              {"x": [2, 3]}, {"y": [2, 3]}, {"s1": shape(6), "s2": shape(2, 3)})
    check_pass(g, ReshapeRemovePass())
    assert types(g) == {"Data": 1, "Relu": 1, "NetOutput": 1}


def test_a_first_reshape_read_elsewhere_stays():
    g = model([helper.make_node("Reshape", ["x", "s1"], ["a"], name="first"),
               helper.make_node("Reshape", ["a", "s2"], ["y"], name="second")],
              {"x": [2, 3]}, {"y": [3, 2], "a": [6]}, {"s1": shape(6), "s2": shape(3, 2)})
    check_pass(g, ReshapeRemovePass())
    assert node_of(g, "Data").out_data_nodes() == [g.find_node("first"), g.find_node("second")]


def test_a_zero_in_the_last_target_copies_a_dim_so_the_chain_stays():
    g = model([helper.make_node("Reshape", ["x", "s1"], ["a"]),
               helper.make_node("Reshape", ["a", "s2"], ["y"])],
              {"x": [2, 3, 4]}, {"y": [6, 2, 2]}, {"s1": shape(6, 4), "s2": shape(0, 2, 2)})
    assert not run_pass(g, ReshapeRemovePass())
