"""A lowered body's own streams (GE's label_maker.cc AddStreamActive and StreamAllocator::
SetActiveStreamsForSubgraphs): a body whose nodes need a second stream gets one that no node
outside it uses, started by the body's first-active StreamActive on the parent's stream, where
the label tasks are; a branch not taken starts nothing, a loop starts its body's stream on every
trip, and the device's numbers agree with onnxruntime's either way."""
import numpy as np
import pytest
from onnx import TensorProto as T, helper

from ge_core.graph.attr_names import (ATTR_NAME_ACTIVE_STREAM_LIST,
                                      ATTR_NAME_SUBGRAPH_FIRST_ACTIVE, HEAD_STREAMS, STREAM_ID)
from ge_core.model_task_type import ModelTaskType
from labels_testing import assert_agree, compile_model, model, run_everywhere, vi

X = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
JUMPS = {ModelTaskType.LABEL_SET, ModelTaskType.STREAM_LABEL_GOTO,
         ModelTaskType.STREAM_LABEL_SWITCH_BY_INDEX}


def two_engine_if() -> object:
    """y = c ? Relu(x + x) : -x: the then branch is Vector work, then AI Core work."""
    then_g = helper.make_graph([helper.make_node("Add", ["x", "x"], ["t"], "then_add"),
                                helper.make_node("Relu", ["t"], ["r"], "then_relu")],
                               "then", [], [vi("r", [2, 3])])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"], "else_neg")], "else", [],
                               [vi("e", [2, 3])])
    return model([helper.make_node("If", ["c"], ["y"], "if0", then_branch=then_g,
                                   else_branch=else_g)],
                 [vi("x", [2, 3]), vi("c", [], T.BOOL)], [vi("y", [2, 3])])


def two_engine_loop() -> object:
    """M trips of acc = MatMul(Relu(acc + x - 1), w): two Vector ops, then two AI Core ops, so
    each trip runs on two streams."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Add", ["a_in", "x"], ["s"], "body_add"),
         helper.make_node("Sub", ["s", "one"], ["d"], "body_sub"),
         helper.make_node("Relu", ["d"], ["r"], "body_relu"),
         helper.make_node("MatMul", ["r", "w"], ["a_out"], "body_matmul")],
        "body", [vi("i", [], T.INT64), vi("cond_in", [], T.BOOL), vi("a_in", [2, 3])],
        [vi("cond_out", [], T.BOOL), vi("a_out", [2, 3])])
    consts = [helper.make_node("Constant", [], ["one"], value=helper.make_tensor(
                  "one_v", T.FLOAT, [], [1.0])),
              helper.make_node("Constant", [], ["w"], value=helper.make_tensor(
                  "w_v", T.FLOAT, [3, 3], [0.5, -1, 0, 1, 0.25, 0, 0, 1, 0.5]))]
    return model([*consts, helper.make_node("Loop", ["M", "", "a0"], ["a"], "loop0", body=body)],
                 [vi("M", [], T.INT64), vi("a0", [2, 3]), vi("x", [2, 3])], [vi("a", [2, 3])])


def _first_actives(ge_model) -> dict[str, object]:
    return {n.name: n for n in ge_model.graph
            if n.op_desc.get_attr(ATTR_NAME_SUBGRAPH_FIRST_ACTIVE)}


@pytest.fixture(scope="module")
def if_om():
    return compile_model(two_engine_if())


def test_each_branch_starts_with_its_stream_active(if_om):
    actives = _first_actives(if_om)
    assert sorted(actives) == ["if0/ElseStreamActive", "if0/ThenStreamActive"]
    graph = if_om.graph
    then_add, then_relu = graph.find_node("if0/then_add"), graph.find_node("if0/then_relu")
    stream = {n: n.op_desc.get_attr(STREAM_ID) for n in (then_add, then_relu)}
    parent = actives["if0/ThenStreamActive"].op_desc.get_attr(STREAM_ID)
    own = ({stream[then_add], stream[then_relu]} - {parent}).pop()
    # The then branch's second stream is its own: started by ThenStreamActive, never a head
    # stream, and no node outside the branch is on it.
    assert actives["if0/ThenStreamActive"].op_desc.get_attr(ATTR_NAME_ACTIVE_STREAM_LIST) == [own]
    assert actives["if0/ElseStreamActive"].op_desc.get_attr(ATTR_NAME_ACTIVE_STREAM_LIST) == []
    assert own not in graph.attrs[HEAD_STREAMS]
    on_own = {n.name for n in graph if n.op_desc.get_attr(STREAM_ID) == own
              and n.type not in ("Send", "Recv")}
    assert on_own == {n.name for n in (then_add, then_relu) if stream[n] == own}


def test_the_stream_active_task_is_on_the_label_stream(if_om):
    tasks = if_om.task_def.task
    label_streams = {t.stream_id for t in tasks if t.type in JUMPS}
    actives = [t for t in tasks if t.type == ModelTaskType.STREAM_ACTIVE]
    assert len(label_streams) == 1
    assert [(t.stream_id, t.stream_active.active_stream_id) for t in actives] == \
        [(label_streams.pop(), next(s for s in {t.stream_id for t in tasks} if s not in
                                    if_om.graph.attrs[HEAD_STREAMS]))]


@pytest.mark.parametrize("cond", [True, False], ids=["then", "else"])
def test_either_branch_gives_onnxruntimes_numbers(if_om, cond):
    assert_agree(run_everywhere(two_engine_if(), {"x": X, "c": np.array(cond)}, if_om))


@pytest.mark.parametrize("trips", [0, 1, 3])
def test_a_loop_starts_its_bodys_stream_on_every_trip(trips):
    om = compile_model(two_engine_loop())
    active = _first_actives(om)["loop0/EnterStreamActive"]
    assert len(active.op_desc.get_attr(ATTR_NAME_ACTIVE_STREAM_LIST)) == 1
    feeds = {"M": np.array(trips, np.int64), "a0": X, "x": np.full((2, 3), 0.5, np.float32)}
    assert_agree(run_everywhere(two_engine_loop(), feeds, om))


def test_the_bodies_are_grouped_by_one_read_of_each_node(monkeypatch):
    """Each region's bodies come from one pass over the nodes, not from every region reading
    all of them (a chain of 4000 Ifs read 16k nodes 4000 times): the bodies a node lies in are
    asked once a node, however many regions the graph has."""
    from ge_core.compiler.stream.logical_stream_passes import assign_label_body_streams_pass as p
    ifs, x, nodes = 12, "x", []
    for i in range(ifs):   # a chain of Ifs on one condition, each branch one op
        then_g = helper.make_graph([helper.make_node("Relu", [x], [f"t{i}"], f"t{i}")],
                                   f"then{i}", [], [vi(f"t{i}", [2, 3])])
        else_g = helper.make_graph([helper.make_node("Neg", [x], [f"e{i}"], f"e{i}")],
                                   f"else{i}", [], [vi(f"e{i}", [2, 3])])
        nodes.append(helper.make_node("If", ["c"], [f"y{i}"], f"if{i}", then_branch=then_g,
                                      else_branch=else_g))
        x = f"y{i}"
    asked = []
    monkeypatch.setattr(p, "bodies_of", lambda node: asked.append(node) or
                        list(node.op_desc.get_attr(p.LABEL_BODIES) or ()))
    ge_model = compile_model(model(nodes, [vi("x", [2, 3]), vi("c", [], T.BOOL)],
                                   [vi(x, [2, 3])]))
    assert len({n.name for n in asked}) > 3 * ifs   # labels, copies, branch nodes
    assert len(asked) <= 2 * len({n.name for n in asked})
    regions = {n.op_desc.get_attr(p.LABEL_REGION) for n in ge_model.graph} - {None}
    assert len(regions) == ifs
