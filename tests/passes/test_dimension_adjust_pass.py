"""DimensionAdjustPass: Squeeze / Unsqueeze on static shapes become Reshapes to the inferred shape
(GE-local, no kernel), so the numbers stay while ReshapeRemovePass can remove them."""
import numpy as np
from onnx import helper

from ge_core.graph import dump_graph
from ge_core.passes.dimension_adjust_pass import DimensionAdjustPass
from ge_core.passes.reshape_remove_pass import ReshapeRemovePass
from pass_testing import check_pass, model, run_pass, types

AXES = {"axes": np.array([0], np.int64)}


def test_squeeze_and_unsqueeze_become_reshapes_to_their_static_shapes():
    g = model([helper.make_node("Unsqueeze", ["x", "axes"], ["u"], name="unsq"),
               helper.make_node("Relu", ["u"], ["r"], name="relu"),
               helper.make_node("Squeeze", ["r", "axes"], ["y"], name="sq")],
              {"x": [2, 3]}, {"y": [2, 3]}, AXES)
    assert check_pass(g, DimensionAdjustPass())
    assert dump_graph(g) == """\
graph g (7 nodes)
  %x : Data() -> f32[2,3] => [%unsq_reshape:0] {index=0}
  %unsq_shape : Const() -> i64[3] => [%unsq_reshape:1] {value=<i64[3] [1,2,3]>}
  %unsq_reshape : Reshape(%x:0, %unsq_shape:0) -> f32[1,2,3] => [%relu:0]
  %relu : Relu(%unsq_reshape:0) -> f32[1,2,3] => [%sq_reshape:0]
  %sq_shape : Const() -> i64[2] => [%sq_reshape:1] {value=<i64[2] [2,3]>}
  %sq_reshape : Reshape(%relu:0, %sq_shape:0) -> f32[2,3] => [%NetOutput:0]
  %NetOutput : NetOutput(%sq_reshape:0) -> ()
"""  # the shared `axes` Const went with its last reader


def test_the_attr_form_of_old_opsets_too():
    g = model([helper.make_node("Unsqueeze", ["x"], ["y"], axes=[0, 3])],
              {"x": [2, 3]}, {"y": [1, 2, 3, 1]}, opset=11)
    check_pass(g, DimensionAdjustPass())
    assert types(g) == {"Data": 1, "Const": 1, "Reshape": 1, "NetOutput": 1}


def test_a_dynamic_shape_stays():
    g = model([helper.make_node("Unsqueeze", ["x", "axes"], ["y"])],
              {"x": ["N", 3]}, {"y": [1, "N", 3]}, AXES)
    assert not run_pass(g, DimensionAdjustPass())


def test_with_reshape_remove_an_unsqueeze_squeeze_pair_vanishes_in_one_run():
    g = model([helper.make_node("Unsqueeze", ["x", "axes"], ["u"]),
               helper.make_node("Squeeze", ["u", "axes"], ["s"]),
               helper.make_node("Relu", ["s"], ["y"], name="relu")],
              {"x": [2, 3]}, {"y": [2, 3]}, AXES)
    check_pass(g, DimensionAdjustPass(), ReshapeRemovePass())
    assert types(g) == {"Data": 1, "Relu": 1, "NetOutput": 1}
