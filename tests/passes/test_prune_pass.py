"""PrunePass: what reaches no NetOutput (nor a node kept for its own sake) goes; Data stays, and
so do subgraph Data nodes."""
import numpy as np
from onnx import helper

from ge_core.graph import GraphUtils, OpDesc
from ge_core.passes.prune_pass import PrunePass
from pass_testing import COND, check_both_branches, check_pass, if_node, model, run_pass, types


def with_dead_branch():
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu"),
                  helper.make_node("Exp", ["unused"], ["e"], name="exp"),
                  helper.make_node("Neg", ["e"], ["n"], name="neg")],
                 {"x": [2], "unused": [2]}, {"y": [2]}, {"w": np.ones(2, np.float32)})


def test_dead_nodes_go_graph_inputs_stay():
    g = with_dead_branch()
    assert check_pass(g, PrunePass())
    assert [n.name for n in g] == ["x", "unused", "relu", "NetOutput"]


def test_a_control_path_to_the_output_keeps_a_node():
    g = with_dead_branch()
    GraphUtils.add_edge(g.find_node("neg").out_control_anchor,
                        g.find_node("relu").in_control_anchor)
    check_pass(g, PrunePass())
    assert [n.name for n in g] == ["x", "unused", "relu", "exp", "neg", "NetOutput"]  # w went


def test_an_op_without_outputs_is_kept_with_what_feeds_it():
    g = with_dead_branch()
    sink = g.add_node(OpDesc("print", "Print", 1, 0))
    GraphUtils.add_edge(g.find_node("neg").out_data_anchor(0), sink.in_data_anchor(0))
    run_pass(g, PrunePass())
    assert types(g) == {"Data": 2, "Relu": 1, "Exp": 1, "Neg": 1, "Print": 1, "NetOutput": 1}


def test_a_graph_without_netoutput_is_left_alone():
    g = with_dead_branch()
    GraphUtils.remove_node(g.output_node)
    assert not run_pass(g, PrunePass())


def test_prunes_inside_a_branch_keeping_its_data():
    then = [helper.make_node("Exp", ["x"], ["dead"]), helper.make_node("Neg", ["x"], ["o"])]
    g = model([if_node(then, [helper.make_node("Relu", ["z"], ["o"])], [2])],
              {"cond": COND, "x": [2], "z": [2]}, {"y": [2]})
    check_both_branches(g, PrunePass(), x=np.ones(2, np.float32), z=np.ones(2, np.float32))
    assert types(g.subgraphs[0]) == {"Data": 1, "Neg": 1, "NetOutput": 1}
