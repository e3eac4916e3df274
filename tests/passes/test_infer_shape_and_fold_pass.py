"""InferShape alternating with ConstantFoldingPass: each fold can give InferShape a static shape
that makes the next fold possible, until a round folds nothing."""
import numpy as np
from onnx import TensorProto, helper

from ge_core.executor import HostExecutor, random_feeds
from ge_core.graph import dump_graph, validate
from ge_core.passes import PassManager
from ge_core.passes.infer_shape_and_fold_pass import (FoldRounds, InferShapeAndFoldPass,
                                                      infer_and_fold)
from pass_testing import model


def shapes_known_late():
    """Round 1 folds Shape(x), making reshape's shape constant; round 2's InferShape then knows
    reshape's output, so Shape(reshape) folds, and ConstantOfShape with it; round 3 finds
    nothing."""
    ones = helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0])
    return model([helper.make_node("Shape", ["x"], ["s"]),
                  helper.make_node("Reshape", ["flat", "s"], ["r"], name="reshape"),
                  helper.make_node("Shape", ["r"], ["rs"]),
                  helper.make_node("ConstantOfShape", ["rs"], ["ones"], value=ones),
                  helper.make_node("Add", ["r", "ones"], ["y"], name="add")],
                 {"x": [2, 3], "flat": [6]}, {"y": None})


def test_alternates_until_a_round_folds_nothing():
    g = shapes_known_late()
    feeds = random_feeds(g)
    want = HostExecutor(g).run(feeds)
    assert infer_and_fold(g) == FoldRounds(3, True)
    validate(g)
    np.testing.assert_array_equal(HostExecutor(g).run(feeds)["y"], want["y"])
    assert dump_graph(g) == """\
graph g (7 nodes)
  %x : Data() -> f32[2,3] => [] {index=0}
  %flat : Data() -> f32[6] => [%reshape:0] {index=1}
  %s : Const() -> i64[2] => [%reshape:1] {value=<i64[2] [2,3]>}
  %reshape : Reshape(%flat:0, %s:0) -> f32[2,3] => [%add:0]
  %ones : Const() -> f32[2,3] => [%add:1] {value=<f32[2,3]>}
  %add : Add(%reshape:0, %ones:0) -> f32[2,3] => [%NetOutput:0]
  %NetOutput : NetOutput(%add:0) -> ()
"""


def test_the_bound_cuts_the_loop_with_a_warning():
    g = shapes_known_late()
    fold = InferShapeAndFoldPass(max_rounds=2)
    manager = PassManager("test").add_pass(fold.name, fold)
    assert manager.run(g)
    assert fold.last == FoldRounds(2, False)
    assert "still folding after 2 rounds" in manager.history[0].warnings[0]
    assert g.find_node("ConstantOfShape_3") is None  # round 2 got that far


def test_a_graph_with_nothing_to_fold_takes_one_round_and_is_unchanged():
    g = model([helper.make_node("Relu", ["x"], ["y"])], {"x": [2]}, {"y": [2]})
    fold = InferShapeAndFoldPass()
    manager = PassManager("test").add_pass(fold.name, fold)
    assert not manager.run(g)
    assert fold.last == FoldRounds(1, True)
