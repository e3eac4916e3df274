"""The label maker's nodes take their descs after they join the graph (a MemcpyAsync copies its
input's desc to its output): each is a DescUpdated with the text before and after, so a watch,
a step and the graph pane follow them as any other edit."""
from ge_core.atc import atc
from ge_core.compiler import CompileOptions
from ge_core.compiler.model_builder import BuildOptions
from ge_core.graph.events import DescUpdated, NodeAdded
from ge_core.parser import parse_onnx
from npu_emu.base.trace import TraceRecorder

from labels_testing import if_model


def test_a_copy_the_label_maker_adds_announces_the_output_desc_it_takes():
    graph = parse_onnx(if_model())
    rec = TraceRecorder()
    graph.bus.subscribe(rec)
    try:
        atc(graph, CompileOptions(dump=None), BuildOptions())
    finally:
        graph.bus.unsubscribe(rec)
    added = {e.node: e.tick for e in rec.events
             if isinstance(e, NodeAdded) and e.op_type == "MemcpyAsync"}
    outputs = [e for e in rec.events if isinstance(e, DescUpdated) and e.node in added
               and e.io == "output"]
    assert outputs and {e.node for e in outputs} == set(added)
    for e in outputs:
        assert e.tick > added[e.node]   # written once in the graph, not before
        assert (e.index, e.old, e.new) == (0, "?[*]", "f32[2,3]")
        assert str(graph.find_node(e.node).op_desc.output_descs[0]) == e.new
