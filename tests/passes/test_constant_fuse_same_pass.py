"""ConstantFuseSamePass: Consts equal in dtype, shape and bytes merge into the first one; a Const
with control inputs, or in another graph, stays."""
import numpy as np
from onnx import TensorProto, helper

from ge_core.graph import GraphUtils
from ge_core.passes.constant_fuse_same_pass import ConstantFuseSamePass
from pass_testing import COND, check_both_branches, check_pass, if_node, model, run_pass


def adds(consts: dict):
    """y_k = x + c_k for each named const (through a Cast to float when it is not: an Add takes
    one type)."""
    nodes = []
    for k, value in consts.items():
        operand = k
        if np.asarray(value).dtype != np.float32:
            operand = f"{k}_f32"
            nodes.append(helper.make_node("Cast", [k], [operand], to=TensorProto.FLOAT))
        nodes.append(helper.make_node("Add", ["x", operand], [f"y_{k}"], name=f"add_{k}"))
    return model(nodes, {"x": [2]}, {f"y_{k}": None for k in consts}, consts)


def test_equal_consts_merge_into_the_first():
    f32 = np.array([1, 2], np.float32)
    g = adds({"a": f32, "b": f32.copy(), "c": np.array([1, 2], np.float64),
              "d": np.array([[1, 2]], np.float32), "e": np.array([1, 3], np.float32),
              "f": f32.copy()})
    assert check_pass(g, ConstantFuseSamePass())
    consts = [n.name for n in g if n.type == "Const"]
    assert consts == ["a", "c", "d", "e"]
    assert [p.owner.name for p in g.find_node("a").out_data_anchor(0).peers] == \
        ["add_a", "add_b", "add_f"]


def test_a_const_with_a_control_input_stays():
    f32 = np.array([1, 2], np.float32)
    g = adds({"a": f32, "b": f32.copy()})
    GraphUtils.add_edge(g.find_node("x").out_control_anchor, g.find_node("b").in_control_anchor)
    assert not run_pass(g, ConstantFuseSamePass())


def test_consts_of_a_subgraph_merge_among_themselves_only():
    one = helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])
    then = [helper.make_node("Constant", [], ["k1"], value=one, name="k1"),
            helper.make_node("Constant", [], ["k2"], value=one, name="k2"),
            helper.make_node("Sum", ["x", "k1", "k2"], ["o"])]
    g = model([if_node(then, [helper.make_node("Identity", ["x"], ["o"])], [1], out="i"),
               helper.make_node("Add", ["i", "k"], ["y"])],
              {"cond": COND, "x": [1]}, {"y": [1]}, {"k": np.array([1], np.float32)})
    check_both_branches(g, ConstantFuseSamePass(), x=np.array([3], np.float32))
    assert [n.name for n in g.subgraphs[0] if n.type == "Const"] == ["k1"]
    assert g.find_node("k") is not None
