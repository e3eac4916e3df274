"""InferShapePass in Prepare's GEPass (InferShapeForPreprocess): each node is inferred before the
folding passes look at it, so a fold upstream makes a shape static downstream in the same walk,
with no rounds of whole-graph InferShape."""
from dataclasses import replace

import numpy as np
from onnx import TensorProto, helper

from ge_core.compiler.pass_lists import infer_shape_for_preprocess
from ge_core.executor import HostExecutor, random_feeds
from ge_core.graph import GeShape, dump_graph, validate
from ge_core.passes import GEPass, PassManager
from ge_core.passes.base_node_pass import BaseNodePass
from ge_core.passes.infer_shape_pass import InferShapePass
from pass_testing import model, run_pass


def shapes_known_late():
    """Shape(x) folds, making reshape's shape a Const; InferShapePass then knows reshape's output,
    so Shape(reshape) folds, and ConstantOfShape with it."""
    ones = helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0])
    return model([helper.make_node("Shape", ["x"], ["s"]),
                  helper.make_node("Reshape", ["flat", "s"], ["r"], name="reshape"),
                  helper.make_node("Shape", ["r"], ["rs"]),
                  helper.make_node("ConstantOfShape", ["rs"], ["ones"], value=ones),
                  helper.make_node("Add", ["r", "ones"], ["y"], name="add")],
                 {"x": [2, 3], "flat": [6]}, {"y": None})


def test_one_walk_folds_what_shapes_known_late_allow():
    g = shapes_known_late()
    feeds = random_feeds(g)
    want = HostExecutor(g).run(feeds)
    group = infer_shape_for_preprocess()
    assert PassManager("Prepare").add_pass(group.name, group).run(g)
    validate(g)
    np.testing.assert_array_equal(HostExecutor(g).run(feeds)["y"], want["y"])
    # InferShapePass gave reshape (and its readers) shapes, the Shapes folded in
    # DimensionComputePass, the ConstantOfShape in ConstantFoldingPass
    assert [name for name, n in group.details() if n] == ["InferShapePass",
                                                           "DimensionComputePass",
                                                           "ConstantFoldingPass"]
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


class _GrowInput(BaseNodePass):
    """At the NetOutput, once: x becomes [4,3] and is passed again."""
    name = "GrowInput"
    done = False

    def run(self, node):
        if node.type == "NetOutput" and not self.done:
            self.done = True
            x = node.graph.find_node("x")
            op = x.op_desc
            for i, desc in enumerate(op.input_descs):
                op.update_input_desc(i, replace(desc, shape=GeShape((4, 3))))
            for i, desc in enumerate(op.output_descs):
                op.update_output_desc(i, replace(desc, shape=GeShape((4, 3))))
            self.add_re_pass_node(x)


def test_a_changed_input_desc_revisits_a_consumer_already_seen_at_once():
    g = model([helper.make_node("Relu", ["x"], ["r"], name="relu"),
               helper.make_node("Neg", ["r"], ["y"], name="neg")], {"x": [2, 3]}, {"y": [2, 3]})
    visited = [node.name for name, node in GEPass(g, [InferShapePass(), _GrowInput()]).walk()
               if name == "InferShapePass"]
    assert visited == ["x", "relu", "neg", "NetOutput"] * 2
    assert str(g.output_node.op_desc.input_descs[0].shape) == "[4,3]"


def test_a_graph_already_inferred_is_unchanged():
    g = model([helper.make_node("Relu", ["x"], ["y"])], {"x": [2]}, {"y": [2]})
    assert not run_pass(g, InferShapePass())
