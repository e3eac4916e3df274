"""TensorFlow-style Switch/Merge sunk as GE sinks them (passes/control_flow_and_stream): the
Switch becomes a StreamSwitch per branch, each starting its branch's stream; the Merge a
StreamMerge whose stream the branch that ran starts; the events the activations make
redundant are dropped (OptimizeByStreamActivate); a split branch stream is started through a
StreamActive after its switch (UpdateActiveStreams). On the device, either branch gives
numpy's numbers for the model (sample_models/switch_merge.onnx), and every model stream ends
at rest."""
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T, helper

from ge_core.atc import atc
from ge_core.compiler import CompileOptions
from ge_core.compiler.model_builder import BuildOptions
from ge_core.compiler.stream.stream_options import StreamOptions
from ge_core.graph import GraphError
from ge_core.graph.attr_names import (ATTR_NAME_ACTIVE_STREAM_LIST, ATTR_NAME_STREAM_LABEL,
                                      HEAD_STREAMS, STREAM_ID)
from ge_core.parser import parse_onnx
from ge_core.runtime.v1 import GraphLoader, ModelManager
from npu_emu.runtime import RuntimeConfig
from npu_emu.scheduler.events import StreamState
from npu_emu.world import World

MODEL = Path(__file__).resolve().parents[2] / "sample_models" / "switch_merge.onnx"
X = (np.arange(8, dtype=np.float32).reshape(2, 4) - 3) / 2


def _expected(x: np.ndarray, c: bool) -> np.ndarray:
    h = x + 1
    return (np.maximum(h * 2, 0) if c else -h) + 1


def _build(max_task_count: int | None = None):
    build = BuildOptions(stream=StreamOptions(max_task_count=max_task_count))
    return atc(parse_onnx(onnx.load(MODEL)), CompileOptions(dump=None), build).built


def _run(ge_model, c: bool) -> tuple[np.ndarray, list[StreamState]]:
    world = World(RuntimeConfig())
    with world.entered():
        world.runtime.set_device(0)
        try:
            model = ModelManager.get_instance().get_model(
                GraphLoader.load_model_online(ge_model))
            out = model.nn_execute({"x": X, "c": np.array(c)})["out"]
            states = [s.state for s in world.runtime.device(0).scheduler.streams
                      if s.persistent]
        finally:
            world.runtime.close()
    return out, states


@pytest.fixture(scope="module")
def built():
    return _build()


def _node(graph, name):
    return next(n for n in graph if n.name == name)


def test_switch_and_merge_become_stream_ops(built):
    graph = built.ge_model.graph
    types = {n.type for n in graph}
    assert "Switch" not in types and "Merge" not in types
    true_switch, false_switch = _node(graph, "c/StreamSwitch_t"), _node(graph, "c/StreamSwitch_f")
    merge = _node(graph, "merge")
    assert merge.type == "StreamMerge"
    assert merge.op_desc.get_attr(ATTR_NAME_STREAM_LABEL) == "merge"
    stream = {n.name: n.op_desc.get_attr(STREAM_ID) for n in graph}
    # Each switch starts its branch's stream; the branches and the merge are no head streams.
    assert true_switch.op_desc.get_attr(ATTR_NAME_ACTIVE_STREAM_LIST) == [stream["double"]]
    assert false_switch.op_desc.get_attr(ATTR_NAME_ACTIVE_STREAM_LIST) == [stream["negate"]]
    heads = graph.attrs[HEAD_STREAMS]
    assert {stream["double"], stream["negate"], stream["merge"]}.isdisjoint(heads)
    # Both branches' last StreamActive start the merge's stream.
    starters = [n for n in graph if n.type == "StreamActive"
                and n.op_desc.get_attr(ATTR_NAME_ACTIVE_STREAM_LIST) == [stream["merge"]]]
    assert sorted(n.name for n in starters) == ["merge_input_0_MemcpyAsync_StreamActive",
                                                "merge_input_1_MemcpyAsync_StreamActive"]


def test_optimize_by_stream_activate_drops_the_events_into_the_branches(built):
    counts = dict(built.streams.event_counts)
    assert counts["OptimizeByStreamActivate"] < counts["OptimizeByRecvEvents"]
    graph = built.ge_model.graph
    waiting = {m.name for n in graph if n.type == "Recv" for m in n.out_nodes()}
    assert not waiting & {"double", "negate"}   # the switch that starts them orders them


@pytest.mark.parametrize("cond", [True, False], ids=["true", "false"])
def test_either_branch_runs_on_the_device(built, cond):
    out, states = _run(built.ge_model, cond)
    np.testing.assert_allclose(out, _expected(X, cond), rtol=1e-6)
    assert all(s == StreamState.INACTIVE for s in states), states


@pytest.mark.parametrize("cond", [True, False], ids=["true", "false"])
def test_a_split_branch_stream_is_started_through_a_stream_active(cond):
    built = _build(max_task_count=30)
    graph = built.ge_model.graph
    true_switch = _node(graph, "c/StreamSwitch_t")
    after = _node(graph, "c/StreamSwitch_t_StreamActive_0")
    assert true_switch.op_desc.get_attr(ATTR_NAME_ACTIVE_STREAM_LIST) == \
        [after.op_desc.get_attr(STREAM_ID)]
    branch = after.op_desc.get_attr(ATTR_NAME_ACTIVE_STREAM_LIST)
    assert len(branch) == 2 and _node(graph, "double").op_desc.get_attr(STREAM_ID) in branch
    assert not set(branch) & set(graph.attrs[HEAD_STREAMS])
    out, states = _run(built.ge_model, cond)
    np.testing.assert_allclose(out, _expected(X, cond), rtol=1e-6)
    assert all(s == StreamState.INACTIVE for s in states), states


def test_a_switch_on_a_float_is_refused_in_one_line():
    nodes = [helper.make_node("Switch", ["x", "c"], ["f", "t"], "sw"),
             helper.make_node("Merge", ["f", "t"], ["y"], "m")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, [2]),
                                           helper.make_tensor_value_info("c", T.FLOAT, [])],
                              [helper.make_tensor_value_info("y", T.FLOAT, [2])])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(GraphError, match=r"node sw \(Switch\): its pred c:0 is f32\[\]"):
        atc(parse_onnx(proto), CompileOptions(dump=None), BuildOptions())
