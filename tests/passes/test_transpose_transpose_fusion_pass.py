"""TransposeTransposeFusionPass: Transpose(Transpose(x, p1), p2) is one Transpose with perm
[p1[j] for j in p2], or x itself when that is the identity."""
import numpy as np
from onnx import helper

from ge_core.passes.reshape_remove_pass import ReshapeRemovePass
from ge_core.passes.transpose_transpose_fusion_pass import TransposeTransposeFusionPass
from pass_testing import check_pass, model, node_of, types


def pair(p1, p2, x=(2, 3, 4), extra_output=False):
    attrs = [{} if p is None else {"perm": p} for p in (p1, p2)]
    outputs = {"y": None} | ({"a": None} if extra_output else {})
    return model([helper.make_node("Transpose", ["x"], ["a"], name="first", **attrs[0]),
                  helper.make_node("Transpose", ["a"], ["y"], name="second", **attrs[1])],
                 {"x": list(x)}, outputs)


def test_two_transposes_become_one_with_the_composed_perm():
    g = pair([0, 2, 1], [1, 0, 2])
    assert check_pass(g, TransposeTransposeFusionPass())
    second = node_of(g, "Transpose")
    assert second.name == "second" and second.op_desc.get_attr("perm") == [2, 0, 1]
    assert second.in_data_nodes() == [g.find_node("x")]


def test_inverse_perms_cancel():
    g = pair([1, 2, 0], [2, 0, 1])
    check_pass(g, TransposeTransposeFusionPass())
    assert types(g) == {"Data": 1, "NetOutput": 1}


def test_two_default_reversals_cancel():
    g = pair(None, None)
    check_pass(g, TransposeTransposeFusionPass())
    assert types(g) == {"Data": 1, "NetOutput": 1}


def test_a_chain_of_three_fuses_in_one_run():
    g = model([helper.make_node("Transpose", ["x"], ["a"], perm=[1, 0, 2]),
               helper.make_node("Transpose", ["a"], ["b"], perm=[0, 2, 1]),
               helper.make_node("Transpose", ["b"], ["y"], perm=[2, 1, 0])],
              {"x": [2, 3, 4]}, {"y": None})
    check_pass(g, TransposeTransposeFusionPass())
    assert types(g)["Transpose"] == 1


def test_the_first_transpose_stays_when_read_elsewhere():
    g = pair([0, 2, 1], [1, 0, 2], extra_output=True)
    check_pass(g, TransposeTransposeFusionPass())
    assert types(g)["Transpose"] == 2
    assert g.find_node("second").in_data_nodes() == [g.find_node("x")]


def test_no_fusion_across_a_removed_reshape():
    """Two channel shuffles in a row, of 4 groups then of 2: ReshapeRemovePass, in the same
    walk, leaves the Transposes reading each other in other shapes, and their perms, each other's
    inverse, had cancelled (found by a random graph against onnxruntime)."""
    def shuffle(x, y, groups):
        return [helper.make_node("Reshape", [x, f"s{groups}"], [f"{y}_r"]),
                helper.make_node("Transpose", [f"{y}_r"], [f"{y}_t"], perm=[0, 2, 1, 3]),
                helper.make_node("Reshape", [f"{y}_t", "flat"], [y])]
    g = model(shuffle("x", "a", 4) + shuffle("a", "y", 2), {"x": [1, 16, 3]}, {"y": None},
              {"s4": np.array([1, 4, 4, 3]), "s2": np.array([1, 2, 8, 3]),
               "flat": np.array([1, 16, 3])})
    check_pass(g, ReshapeRemovePass(), TransposeTransposeFusionPass())
    assert types(g)["Transpose"] == 2


def test_no_fusion_onto_a_removed_reshape_s_input():
    """The fused Transpose would read x itself, in x's shape, not the removed Reshape's."""
    g = model([helper.make_node("Reshape", ["x", "s"], ["r"]),
               helper.make_node("Transpose", ["r"], ["a"], perm=[0, 2, 1, 3]),
               helper.make_node("Transpose", ["a"], ["y"], perm=[0, 1, 3, 2])],
              {"x": [1, 12, 2]}, {"y": None}, {"s": np.array([1, 3, 4, 2])})
    check_pass(g, ReshapeRemovePass(), TransposeTransposeFusionPass())
    assert types(g)["Transpose"] == 2
