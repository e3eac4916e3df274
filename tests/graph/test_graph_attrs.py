"""A graph's own attributes: ComputeGraph.set_attr and del_attr are edits a pass counts and, when
the bus is heard, GraphAttrSet events naming the graph and the value before and after; the
attributes a graph is made with (a parsed model's opset, an OM file's) are no edit."""
from ge_core.graph import ComputeGraph, OpDesc
from ge_core.graph.events import AttrSet, GraphAttrSet
from npu_emu.base.trace import TraceBus, TraceRecorder


def _heard(name: str = "g") -> tuple[ComputeGraph, TraceRecorder]:
    bus, rec = TraceBus(), TraceRecorder()
    bus.subscribe(rec)
    return ComputeGraph(name, bus), rec


def test_set_and_del_are_events_with_the_values_before_and_after():
    g, rec = _heard()
    g.set_attr("stream_num", 2)
    g.set_attr("stream_num", 3)
    g.set_attr("head_streams", [0, 1])
    g.del_attr("stream_num")
    g.del_attr("label_num")   # not set: nothing to remove, no event
    assert [(type(e), e.graph, e.key, e.old, e.new) for e in rec.events] == [
        (GraphAttrSet, "g", "stream_num", "None", "2"),
        (GraphAttrSet, "g", "stream_num", "2", "3"),
        (GraphAttrSet, "g", "head_streams", "None", "[0, 1]"),
        (GraphAttrSet, "g", "stream_num", "3", "None")]
    assert g.attrs == {"head_streams": [0, 1]}
    assert rec.events[0].describe() == \
        "1 GraphAttrSet graph=g key=stream_num old=None new=2"


def test_a_graph_attribute_is_an_edit_of_the_graph_not_of_a_node():
    g, rec = _heard()
    before = g.edits.snapshot()
    g.set_attr("event_num", 1)
    g.del_attr("event_num")
    d = g.edits.since(before)
    assert d.graph_attrs_set == 2 and d.attrs_set == 0 and d.any


def test_a_subgraphs_attribute_is_counted_and_heard_at_its_root():
    g, rec = _heard()
    owner = g.add_node(OpDesc("if", "If"))
    branch = ComputeGraph("then")
    g.add_subgraph(owner, branch)
    before = g.edits.snapshot()
    branch.set_attr("_infer_deferred", "Squeeze: axis 2 is 3, not 1")
    assert g.edits.since(before).graph_attrs_set == 1
    e = rec.events[-1]
    assert (type(e), e.graph, e.key) == (GraphAttrSet, "then", "_infer_deferred")
    assert not [e for e in rec.events if isinstance(e, AttrSet)]   # no node was set


def test_attributes_a_graph_is_made_with_are_no_edit():
    g = ComputeGraph("g", TraceBus(), attrs={"opset": 13})
    rec = TraceRecorder()
    g.bus.subscribe(rec)
    assert g.attrs == {"opset": 13} and not g.edits.any and not rec.events


def test_unheard_the_edit_is_still_counted():
    g = ComputeGraph("g", TraceBus())
    g.set_attr("label_num", 4)
    assert g.edits.graph_attrs_set == 1 and g.bus.tick == 0


def test_setting_the_value_an_attribute_has_is_no_edit():
    """The stream split sets the model's counts again after stream allocation: each build
    ended in `stream_num old=2 new=2` events a `step event` stopped on."""
    import numpy as np
    g, rec = _heard()
    g.set_attr("stream_num", 2)
    g.set_attr("head_streams", [0, 1])
    g.set_attr("blob", np.zeros(2))
    edits = g.edits.graph_attrs_set
    g.set_attr("stream_num", 2)
    g.set_attr("head_streams", [0, 1])
    assert g.edits.graph_attrs_set == edits and len(rec.events) == 3
    g.set_attr("stream_num", 2.0)   # another type: another value
    g.set_attr("blob", np.zeros(2))   # an array's == answers elementwise: taken as a change
    assert g.edits.graph_attrs_set == edits + 2


def test_a_branch_deferred_again_for_the_same_reason_is_no_edit():
    """An If whose squeezing branch fails InferShape on known shapes: inferred once at parse,
    it was reset and deferred again by InferShapeForPreprocess, four GraphAttrSet events and a
    pass record saying the graph changed, for the same deferral."""
    import sys
    from dataclasses import replace
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
    from control_flow_testing import squeezing_if_model
    from ge_core.compiler import CompileOptions
    from ge_core.compiler.compile_pipeline import compile_graph
    from ge_core.graph import GeShape
    from ge_core.graph.attr_names import INFER_ALWAYS_FAILS, INFER_DEFERRED
    from ge_core.ops import infer_graph
    from ge_core.parser import parse_onnx
    from npu_emu.world import World
    bus, rec = TraceBus(), TraceRecorder()
    bus.subscribe(rec)
    with World(bus=bus).entered():
        graph = parse_onnx(squeezing_if_model())
        x = graph.find_node("x").op_desc
        x.update_output_desc(0, replace(x.output_descs[0], shape=GeShape((1, 128, 2))))
        infer_graph(graph)
        deferred = [g for g in graph.subgraphs if g.attrs.get(INFER_ALWAYS_FAILS)]
        assert deferred and deferred[0].attrs.get(INFER_DEFERRED)
        first = len([e for e in rec.events if isinstance(e, GraphAttrSet)])
        result = compile_graph(graph, CompileOptions(dump=None))
    again = [e for e in rec.events if isinstance(e, GraphAttrSet)][first:]
    assert not [e for e in again if e.key in (INFER_DEFERRED, INFER_ALWAYS_FAILS)], again
    prepare = next(p for p in result.passes if p.name == "InferShapeForPreprocess")
    assert not prepare.changed
