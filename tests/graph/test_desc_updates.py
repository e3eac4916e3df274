"""OpDesc.update_input_desc / update_output_desc: every write to a desc of a node in a graph is
an edit a pass counts and, when the bus is heard, a DescUpdated event saying which desc and its
text before and after; a desc written equal, or one of an op not yet in a graph, is neither."""
import dataclasses

from ge_core.graph import ComputeGraph, DataType, GeShape, GeTensorDesc, OpDesc
from ge_core.graph.events import DescUpdated
from ge_core.graph.op_desc import DESCS, TYPE, desc_changed
from ge_core.graph.types import Format
from npu_emu.base.trace import TraceBus, TraceRecorder


def _graph():
    bus, rec = TraceBus(), TraceRecorder()
    g = ComputeGraph("g", bus)
    relu = g.add_node(OpDesc("relu", "Relu", 1, 1))
    return g, bus, rec, relu.op_desc


def test_a_changed_desc_is_an_event_with_its_text_before_and_after_and_an_edit():
    g, bus, rec, op = _graph()
    bus.subscribe(rec)
    before = g.edits.snapshot()
    op.update_output_desc(0, GeTensorDesc(GeShape((2, 3)), DataType.DT_FLOAT))
    op.update_input_desc(0, GeTensorDesc(absent=True))
    events = [e for e in rec.events if isinstance(e, DescUpdated)]
    assert [(e.node, e.io, e.index, e.old, e.new) for e in events] == [
        ("relu", "output", 0, "?[*]", "f32[2,3]"), ("relu", "input", 0, "?[*]", "absent")]
    assert g.edits.since(before).descs_updated == 2 and g.edits.since(before).any


def test_a_desc_written_equal_is_no_event_and_no_edit():
    g, bus, rec, op = _graph()
    op.update_output_desc(0, GeTensorDesc(GeShape((2, 3)), DataType.DT_FLOAT))
    bus.subscribe(rec)
    before = g.edits.snapshot()
    op.update_output_desc(0, GeTensorDesc(GeShape((2, 3)), DataType.DT_FLOAT))
    assert not [e for e in rec.events if isinstance(e, DescUpdated)]
    assert not g.edits.since(before).any


def test_unheard_the_edit_is_counted_and_noted_while_watched():
    g, bus, rec, op = _graph()
    touched = g.edits.watch()
    op.update_output_desc(0, GeTensorDesc(GeShape((4,)), DataType.DT_INT32))
    g.edits.unwatch()
    assert g.edits.descs_updated == 1
    assert touched == {op.node: {DESCS}}
    assert str(op.output_descs[0]) == "i32[4]"


def test_a_type_set_is_noted_apart_from_an_attribute_named_type():
    """ONNX's Optional has an attribute named type: a watcher tells the two edits apart."""
    g, bus, rec, op = _graph()
    touched = g.edits.watch()
    op.set_type("Exp")
    op.set_attr("type", 1)
    g.edits.unwatch()
    assert touched == {op.node: {TYPE, "type"}}


def test_an_op_not_in_a_graph_is_written_silently():
    op = OpDesc("new", "Relu", 1, 1)
    op.update_output_desc(0, GeTensorDesc(GeShape((2,)), DataType.DT_FLOAT))
    assert str(op.output_descs[0]) == "f32[2]"


def test_desc_changed_sees_every_field():
    """It compares the fields by hand (it runs at every desc InferShape writes): a field added to
    the dataclass and not to it would make a change in that field no edit."""
    desc = GeTensorDesc(GeShape((2, 3)), DataType.DT_FLOAT16, Format.FORMAT_NCHW, GeShape((6,)),
                        Format.FORMAT_NHWC, absent=True)
    assert not desc_changed(desc, dataclasses.replace(desc))
    others = {"shape": GeShape((3, 2)), "dtype": DataType.DT_FLOAT, "format": Format.FORMAT_ND,
              "origin_shape": GeShape((2, 3)), "origin_format": Format.FORMAT_NCHW,
              "absent": False}
    assert set(others) == {f.name for f in dataclasses.fields(desc)}
    for name, value in others.items():
        assert desc_changed(desc, dataclasses.replace(desc, **{name: value})), name
