"""ReshapeRemovePass removes every static Reshape and the shape Const it leaves unread (the
consumer reads the flat tensor by its own desc); GE's exceptions keep theirs. ReshapeRecoveryPass
then puts a Reshape back on each edge whose two shapes still differ."""
import dataclasses

import numpy as np
from onnx import TensorProto, helper

from ge_core.graph import dump_graph
from ge_core.passes.reshape_recovery_pass import ReshapeRecoveryPass
from ge_core.passes.reshape_remove_pass import ReshapeRemovePass
from pass_testing import check_pass, if_node, model, run_pass, types


def shape(*dims):
    return np.array(dims, np.int64)


def test_a_static_reshape_and_its_orphan_shape_const_are_gone():
    g = model([helper.make_node("Reshape", ["x", "s"], ["r"], name="reshape"),
               helper.make_node("Relu", ["r"], ["y"], name="relu")],
              {"x": [2, 3]}, {"y": [6]}, {"s": shape(6)})
    assert check_pass(g, ReshapeRemovePass())
    assert types(g) == {"Data": 1, "Relu": 1, "NetOutput": 1}
    assert str(g.find_node("relu").op_desc.input_descs[0].shape) == "[6]"   # as the Reshape left it


def test_a_shape_const_read_elsewhere_stays():
    g = model([helper.make_node("Reshape", ["x", "s"], ["y"]),
               helper.make_node("Neg", ["s"], ["t"], name="neg")],
              {"x": [2, 3]}, {"y": [6], "t": (TensorProto.INT64, [1])}, {"s": shape(6)})
    assert check_pass(g, ReshapeRemovePass())
    assert types(g)["Reshape"] == 0 and g.find_node("s").out_data_nodes() == [g.find_node("neg")]


def test_a_reshape_of_unknown_shape_stays():
    g = model([helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape")],
              {"x": ["N", 3]}, {"y": None}, {"s": shape(-1)})
    assert not run_pass(g, ReshapeRemovePass())


def test_a_reshape_read_by_gather_nd_stays():
    g = model([helper.make_node("Reshape", ["x", "s"], ["r"], name="reshape"),
               helper.make_node("GatherND", ["r", "i"], ["y"])],
              {"x": [4], "i": (TensorProto.INT64, [1, 1])}, {"y": [1, 2]}, {"s": shape(2, 2)})
    assert not run_pass(g, ReshapeRemovePass())


def test_a_reshape_giving_a_branch_its_output_stays():
    then = [helper.make_node("Reshape", ["x", "s"], ["o"], name="then_reshape")]
    other = [helper.make_node("Reshape", ["x", "s"], ["o"], name="else_reshape")]
    g = model([if_node(then, other, [6])], {"cond": (TensorProto.BOOL, []), "x": [2, 3]},
              {"y": [6]}, {"s": shape(6)})
    run_pass(g, ReshapeRemovePass())
    assert [n.name for n in g.all_nodes() if n.type == "Reshape"] == ["then_reshape",
                                                                       "else_reshape"]


def test_recovery_puts_one_reshape_back_where_the_shapes_differ():
    g = model([helper.make_node("Reshape", ["x", "s1"], ["a"], name="first"),
               helper.make_node("Reshape", ["a", "s2"], ["y"], name="second")],
              {"x": [2, 3, 4]}, {"y": [4, 6]}, {"s1": shape(6, 4), "s2": shape(4, 6)})
    check_pass(g, ReshapeRemovePass())
    check_pass(g, ReshapeRecoveryPass())
    assert dump_graph(g) == """\
graph g (4 nodes)
  %x : Data() -> f32[2,3,4] => [%Reshape_ReshapeRecoveryPass_0:0] {index=0}
  %Reshape_ReshapeRecoveryPass_0_shape : Const() -> i64[2] => [%Reshape_ReshapeRecoveryPass_0:1] \
{value=<i64[2] [4,6]>}
  %Reshape_ReshapeRecoveryPass_0 : Reshape(%x:0, %Reshape_ReshapeRecoveryPass_0_shape:0) \
-> f32[4,6] => [%NetOutput:0]
  %NetOutput : NetOutput(%Reshape_ReshapeRecoveryPass_0:0) -> ()
"""


def test_a_round_trip_needs_no_recovery():
    g = model([helper.make_node("Reshape", ["x", "s1"], ["a"]),
               helper.make_node("Reshape", ["a", "s2"], ["b"]),
               helper.make_node("Relu", ["b"], ["y"])],
              {"x": [2, 3]}, {"y": [2, 3]}, {"s1": shape(6), "s2": shape(2, 3)})
    check_pass(g, ReshapeRemovePass())
    assert not run_pass(g, ReshapeRecoveryPass())
    assert types(g) == {"Data": 1, "Relu": 1, "NetOutput": 1}


def test_a_dynamic_edge_into_net_output_takes_the_producer_s_shape_as_an_announced_edit():
    """The NetOutput's input desc is replaced in place: a DescUpdated with both texts, and an
    edit the pass's effect counts though it inserted no Reshape."""
    from ge_core.graph import GeShape
    from ge_core.graph.events import DescUpdated
    from npu_emu.base.trace import TraceRecorder
    g = model([helper.make_node("Relu", ["x"], ["y"], name="relu")], {"x": [-1, 3]}, {"y": None})
    out = g.output_node.op_desc
    out.update_input_desc(0, dataclasses.replace(out.input_descs[0], shape=GeShape((-1, -1))))
    rec = TraceRecorder()
    g.bus.subscribe(rec)
    assert run_pass(g, ReshapeRecoveryPass())
    (event,) = [e for e in rec.events if isinstance(e, DescUpdated)]
    assert (event.node, event.io, event.index, event.old, event.new) == \
        (out.name, "input", 0, "f32[?,?]", "f32[?,3]")
    assert types(g) == {"Data": 1, "Relu": 1, "NetOutput": 1}


def test_a_chain_of_reshapes_sharing_shape_consts_goes_reading_each_consumer_list_once(
        monkeypatch):
    """Each removal asked whether the shape Const was still read by listing its readers: a
    chain of N Reshapes sharing it listed ~N^2/4 (8000 Reshapes: 16M). Its anchors answer;
    the Consts still go once the last Reshape does, and the chain computes as before."""
    from ge_core.graph import Node
    n = 300
    nodes = [helper.make_node("Reshape", [f"r{i - 1}" if i else "x", "s6" if i % 2 == 0 else "s23"],
                              [f"r{i}"], name=f"reshape{i}") for i in range(n)]
    nodes.append(helper.make_node("Relu", [f"r{n - 1}"], ["y"], name="relu"))
    g = model(nodes, {"x": [2, 3]}, {"y": [2, 3]}, {"s6": shape(6), "s23": shape(2, 3)})
    listed, out_data_nodes = [0], Node.out_data_nodes

    def counted(node):
        found = out_data_nodes(node)
        listed[0] += len(found)
        return found
    monkeypatch.setattr(Node, "out_data_nodes", counted)
    assert check_pass(g, ReshapeRemovePass())
    assert types(g) == {"Data": 1, "Relu": 1, "NetOutput": 1}
    assert listed[0] <= 3 * n
