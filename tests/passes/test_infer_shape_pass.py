"""InferShapePass in Prepare's GEPass (InferShapeForPreprocess): each node is inferred before the
folding passes look at it, so a fold upstream makes a shape static downstream in the same walk,
with no rounds of whole-graph InferShape."""
from dataclasses import replace

import numpy as np
from onnx import TensorProto, helper

from ge_core.compiler.pass_lists import infer_shape_for_preprocess
from ge_core.executor import HostExecutor, random_feeds
from ge_core.graph import GeShape, GraphUtils, dump_graph, validate
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


def _shape_folds(blocks: int):
    """Blocks of Shape -> Gather(index Const) -> Unsqueeze(axes Const) -> Concat(with a Const)
    -> Reshape -> Relu, each block reading the last: the three Consts are read by a node of
    every block, and one block folds a round (its Shape waits for the last block's output)."""
    nodes, x = [], "x"
    for b in range(blocks):
        nodes += [helper.make_node("Shape", [x], [f"s{b}"]),
                  helper.make_node("Gather", [f"s{b}", "zero"], [f"g{b}"], axis=0),
                  helper.make_node("Unsqueeze", [f"g{b}", "axes"], [f"u{b}"]),
                  helper.make_node("Concat", [f"u{b}", "rest"], [f"c{b}"], axis=0),
                  helper.make_node("Reshape", [x, f"c{b}"], [f"r{b}"]),
                  helper.make_node("Relu", [f"r{b}"], [f"y{b}"])]
        x = f"y{b}"
    return model(nodes, {"x": [2, 3]}, {x: [2, 3]},
                 {"zero": np.array(0, np.int64), "axes": np.array([0], np.int64),
                  "rest": np.array([-1], np.int64)})


def test_a_const_re_passed_each_round_pushes_its_desc_again_only_after_a_change(monkeypatch):
    """A Const read by a node of every block is re-passed each round as one of them folds, and
    InferShape pushed its desc to every reader each time (N^2 reads: a 32k-node model spent
    half its compile there). Its readers' input descs change only by an edge or a desc
    written, both logged while the walk is open: with neither it pushes nothing, and the
    walk folds as before."""
    import ge_core.passes.infer_shape_pass as isp
    blocks, pushed, push = 120, [0], isp.update_peer_input_desc

    def counted(node):
        pushed[0] += sum(len(a.peers) for a in node.out_data_anchors)
        return push(node)
    monkeypatch.setattr(isp, "update_peer_input_desc", counted)
    g = _shape_folds(blocks)
    feeds = random_feeds(g)
    want = HostExecutor(g).run(feeds)
    group = infer_shape_for_preprocess()
    PassManager("Prepare").add_pass(group.name, group).run(g)
    np.testing.assert_array_equal(HostExecutor(g).run(feeds)[f"y{blocks - 1}"],
                                  want[f"y{blocks - 1}"])
    assert not any(n.type in ("Shape", "Gather") for n in g)
    assert pushed[0] < 20 * len(g)


class _OnceAt(BaseNodePass):
    """At its first visit of each node named in ``names``: ``act`` on it, then re-passes the
    Const k."""
    names: tuple[str, ...] = ()

    def __init__(self):
        super().__init__()
        self.done = set()

    def run(self, node):
        if node.name in self.names and node.name not in self.done:
            self.done.add(node.name)
            self.act(node)
            self.add_re_pass_node(node.graph.find_node("k"))


class _Reshaper(_OnceAt):
    """Writes another shape into the input desc of relus r3 and r7 (no edge changed)."""
    name, names = "Reshaper", ("r3", "r7")

    def act(self, node):
        op = node.op_desc
        op.update_input_desc(0, replace(op.input_descs[0], shape=GeShape((3, 2))))


def test_a_reader_s_input_desc_written_since_the_last_push_is_pushed_again():
    """The Const's readers are as it left them but for a desc a pass wrote: the Const, passed
    again, puts the desc back and has that reader passed again at once."""
    g = model([helper.make_node("Add", ["x", "k"], [f"a{i}"], name=f"a{i}") for i in range(10)]
              + [helper.make_node("Relu", [f"a{i}"], [f"r{i}"], name=f"r{i}") for i in range(10)]
              + [helper.make_node("Sum", [f"r{i}" for i in range(10)], ["y"], name="sum")],
              {"x": [2, 3]}, {"y": [2, 3]}, {"k": np.ones((2, 3), np.float32)})
    for i in range(10):   # the Adds read k by the relus' input: k feeds the relus directly
        relu, add = g.find_node(f"r{i}"), g.find_node(f"a{i}")
        GraphUtils.remove_edge(add.out_data_anchor(0), relu.in_data_anchor(0))
        GraphUtils.add_edge(g.find_node("k").out_data_anchor(0), relu.in_data_anchor(0))
    visits = [node.name for name, node in GEPass(g, [InferShapePass(), _Reshaper()]).walk()
              if name == "InferShapePass"]
    assert all(str(g.find_node(f"r{i}").op_desc.input_descs[0].shape) == "[2,3]"
               for i in range(10))
    assert visits.count("k") == 2 and visits.count("r3") == 2 and visits.count("r7") == 2


def test_a_node_of_many_readers_whose_desc_changed_pushes_it_again():
    g = model([helper.make_node("Relu", ["x"], [f"y{i}"], name=f"r{i}") for i in range(10)],
              {"x": [2, 3]}, {f"y{i}": [2, 3] for i in range(10)})
    GEPass(g, [InferShapePass(), _GrowInput()]).run()
    assert {str(g.find_node(f"r{i}").op_desc.input_descs[0].shape) for i in range(10)} \
        == {"[4,3]"}


class _Relinker(_OnceAt):
    """Moves input 0 of adds a3 and a7 from x to z (a Data of x's desc)."""
    name, names = "Relinker", ("a3", "a7")

    def act(self, node):
        a = node.in_data_anchors[0]
        GraphUtils.remove_edge(a.peer, a)
        GraphUtils.add_edge(node.graph.find_node("z").out_data_anchor(0), a)


def test_a_reader_relinked_on_another_input_needs_no_push_of_the_const_it_still_holds(
        monkeypatch):
    """Readers relinked since the Const last pushed, but holding its very desc still on the
    input it feeds (a chain of Ifs on one condition, each relinked as the last one folds):
    the Const, passed again, pushes nothing."""
    import ge_core.passes.infer_shape_pass as isp
    pushes, push = [], isp.update_peer_input_desc

    def counted(node):
        pushes.append(node.name)
        return push(node)
    monkeypatch.setattr(isp, "update_peer_input_desc", counted)
    g = model([helper.make_node("Add", ["x", "k"], [f"y{i}"], name=f"a{i}") for i in range(10)],
              {"x": [2, 3], "z": [2, 3]}, {f"y{i}": [2, 3] for i in range(10)},
              {"k": np.ones((2, 3), np.float32)})
    visits = [node.name for name, node in GEPass(g, [InferShapePass(), _Relinker()]).walk()
              if name == "InferShapePass"]
    assert visits.count("k") == 2 and pushes.count("k") == 1
    assert [n.name for n in g.find_node("z").out_data_nodes()] == ["a3", "a7"]
