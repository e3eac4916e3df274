"""ConstantFoldingPass: a node with Const inputs becomes Consts; folding cascades in one GEPass run;
control order survives; random ops, big outputs and control flow stay. Every rewrite keeps the host
executor's outputs bit for bit."""
import numpy as np
from onnx import TensorProto, helper

from ge_core.graph import GraphUtils, OpDesc, dump_graph
from ge_core.passes import constant_folding_pass
from ge_core.passes.constant_folding_pass import ConstantFoldingPass
from ge_core.passes.identity_pass import IdentityPass
from ge_core.passes.pass_utils import const_value
from pass_testing import (COND, check_both_branches, check_pass, if_node, model, node_of, run_pass,
                          types)

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def chain():
    """x + exp(-c): neg and exp fold, add does not."""
    return model([helper.make_node("Neg", ["c"], ["n"], name="neg"),
                  helper.make_node("Exp", ["n"], ["e"], name="exp"),
                  helper.make_node("Add", ["x", "e"], ["y"], name="add")],
                 {"x": [3]}, {"y": [3]}, {"c": np.array([1, 2, 3], np.float32)})


def test_a_chain_folds_completely_in_one_gepass_run():
    g = chain()
    assert check_pass(g, ConstantFoldingPass())
    assert dump_graph(g) == """\
graph g (4 nodes)
  %x : Data() -> f32[3] => [%add:0] {index=0}
  %e : Const() -> f32[3] => [%add:1] {value=<f32[3] [0.36787942,0.13533528,0.04978707]>}
  %add : Add(%x:0, %e:0) -> f32[3] => [%NetOutput:0]
  %NetOutput : NetOutput(%add:0) -> ()
"""  # the Const is named after the folded output's tensor; `c` went with its last reader


def test_control_inputs_pass_to_the_const():
    g = chain()
    relu = g.add_node(OpDesc("after", "Relu", 1, 1))
    GraphUtils.add_edge(g.find_node("x").out_data_anchor(0), relu.in_data_anchor(0))
    GraphUtils.add_edge(relu.out_data_anchor(0), g.output_node.add_input())
    GraphUtils.add_edge(relu.out_control_anchor, g.find_node("neg").in_control_anchor)
    check_pass(g, ConstantFoldingPass())
    # neg's control input went to its Const `n`, and on to `e` when exp folded and `n` went.
    assert [n.name for n in g.find_node("e").in_control_nodes()] == ["after"]
    assert g.find_node("n") is None


def test_constant_of_shape_folds_and_its_shape_input_goes():
    g = model([helper.make_node("ConstantOfShape", ["s"], ["w"], name="cos",
                                value=helper.make_tensor("v", F, [1], [0.5])),
               helper.make_node("Mul", ["x", "w"], ["y"])],
              {"x": [2, 3]}, {"y": [2, 3]}, {"s": np.array([2, 3], np.int64)})
    check_pass(g, ConstantFoldingPass())
    assert types(g) == {"Data": 1, "Const": 1, "Mul": 1, "NetOutput": 1}
    np.testing.assert_array_equal(const_value(g.find_node("w")), np.full((2, 3), 0.5, np.float32))


def test_shape_and_empty_outputs_are_left_to_the_other_folding_passes():
    # Shape(relu) reads no data (DimensionComputePass's); x[0:0] is empty (ReplaceWithEmptyConst)
    g = model([helper.make_node("Relu", ["x"], ["r"]),
               helper.make_node("Shape", ["r"], ["s"], name="shape"),
               helper.make_node("Slice", ["x", "zero", "zero"], ["e"], name="slice")],
              {"x": [2, 5]}, {"s": (I64, [2]), "e": [0, 5]}, {"zero": np.array([0], np.int64)})
    assert not run_pass(g, ConstantFoldingPass())
    assert g.find_node("shape") and g.find_node("slice")


def test_folds_with_the_kernels_of_the_graphs_opset():
    # Softmax before opset 13 normalises over all dims from `axis` on, from 13 over `axis` only.
    values = {}
    for opset in (11, 13):
        g = model([helper.make_node("Softmax", ["c"], ["s"], axis=1),
                   helper.make_node("Add", ["x", "s"], ["y"])],
                  {"x": [2, 2, 2]}, {"y": [2, 2, 2]},
                  {"c": np.arange(8, dtype=np.float32).reshape(2, 2, 2)}, opset=opset)
        check_pass(g, ConstantFoldingPass())
        values[opset] = const_value(g.find_node("s"))
    np.testing.assert_allclose(values[11].sum(axis=(1, 2)), 1, rtol=1e-6)
    np.testing.assert_allclose(values[13].sum(axis=1), 1, rtol=1e-6)


def test_random_ops_and_nodes_without_a_kernel_stay():
    g = chain()
    for op_type in ("RandomUniform", "NoKernelOp"):
        g.add_node(OpDesc(op_type, op_type, 0, 1))
    run_pass(g, ConstantFoldingPass())
    assert g.find_node("RandomUniform") and g.find_node("NoKernelOp")


def test_an_output_over_the_size_guard_stays(monkeypatch):
    monkeypatch.setattr(constant_folding_pass, "FOLD_LIMIT_BYTES", 1024)
    g = model([helper.make_node("ConstantOfShape", ["small"], ["a"]),
               helper.make_node("ConstantOfShape", ["big"], ["b"], name="big_cos")],
              {}, {"a": [16], "b": [512]},
              {"small": np.array([16], np.int64), "big": np.array([512], np.int64)})
    check_pass(g, ConstantFoldingPass())
    assert types(g)["ConstantOfShape"] == 1 and g.find_node("big_cos")


def test_folds_inside_an_if_branch_and_leaves_its_data_alone():
    c = helper.make_tensor("c", F, [2], [1, 2])
    then = [helper.make_node("Constant", [], ["k"], value=c),
            helper.make_node("Neg", ["k"], ["nk"], name="neg"),
            helper.make_node("Add", ["x", "nk"], ["o"])]
    g = model([if_node(then, [helper.make_node("Identity", ["x"], ["o"])], [2])],
              {"cond": COND, "x": [2]}, {"y": [2]})
    check_both_branches(g, ConstantFoldingPass(), x=np.array([5, 6], np.float32))
    then_graph = g.subgraphs[0]
    assert types(then_graph) == {"Data": 1, "Const": 1, "Add": 1, "NetOutput": 1}
    assert node_of(then_graph, "Data").op_desc.get_attr("parent_node_index") == 1


def test_folds_inside_a_loop_body_with_identity_remove_keeping_the_body_interface():
    body = helper.make_graph(
        [helper.make_node("Constant", [], ["k"], value=helper.make_tensor("c", F, [2], [1, 2])),
         helper.make_node("Neg", ["k"], ["nk"]), helper.make_node("Add", ["v", "nk"], ["v_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])], "body",
        [helper.make_tensor_value_info("i", I64, []),
         helper.make_tensor_value_info("cond_in", B, []),
         helper.make_tensor_value_info("v", F, [2])],
        [helper.make_tensor_value_info("cond_out", B, []),
         helper.make_tensor_value_info("v_out", F, [2])])
    g = model([helper.make_node("Loop", ["trip", "", "v0"], ["y"], body=body)],
              {"v0": [2]}, {"y": [2]}, {"trip": np.array(3, np.int64)})
    check_pass(g, ConstantFoldingPass(), IdentityPass())
    (body_graph,) = g.subgraphs
    assert [n.name for n in body_graph.output_node.in_data_nodes()] == ["cond_in", "Add_2"]
    assert types(body_graph) == {"Data": 3, "Const": 1, "Add": 1, "NetOutput": 1}
