"""The task defs regenerated after a stream split (GE's ReGetTaskInfo) reuse GenTask's op defs
for the nodes the split only moved, so they must come out as a whole GenTask of the split graph
would make them, byte for byte; and the edit watch the reuse relies on sees every node an edit
touches."""
from pathlib import Path

import pytest

from ge_core.atc import atc
from ge_core.compiler import CompileOptions
from ge_core.compiler.model_builder import BuildOptions
from ge_core.compiler.stream import StreamOptions
from ge_core.compiler.task import build_ge_model
from ge_core.graph import ComputeGraph, GraphUtils, OpDesc
from ge_core.graph.compute_graph import EDGES
from ge_core.om.om_file import om_bytes
from ge_core.parser import parse_onnx

SAMPLES = Path(__file__).resolve().parents[3] / "sample_models"


# a chain, a body with its own streams, a StreamSwitch branch, parallel streams with events
@pytest.mark.parametrize("model", ["long_chain", "if_loop", "switch_merge", "sync_patterns"])
def test_a_split_builds_the_model_a_whole_gentask_of_the_split_graph_would(model):
    built = atc(parse_onnx(SAMPLES / f"{model}.onnx"), CompileOptions(dump=None),
                BuildOptions(dump=None, stream=StreamOptions(max_task_count=29))).built
    assert built.streams.splits   # two tasks a stream: the refresh really regenerates
    assert om_bytes(built.ge_model) == om_bytes(build_ge_model(built.ge_model.graph))


def test_the_edit_watch_notes_each_node_an_attr_set_or_an_edge_touches():
    graph = ComputeGraph("g")
    a, b, c = (graph.add_node(OpDesc(name, "Relu", 1, 1)) for name in "abc")
    touched = graph.edits.watch()
    a.op_desc.set_attr("stream_id", 1)
    GraphUtils.add_edge(b.out_data_anchor(0), c.in_data_anchor(0))
    GraphUtils.add_edge(a.out_control_anchor, c.in_control_anchor)
    assert touched == {a: {"stream_id", EDGES}, b: {EDGES}, c: {EDGES}}
    graph.edits.unwatch()
    b.op_desc.set_attr("stream_id", 2)
    assert touched[b] == {EDGES} and graph.edits.touched is None


def test_a_split_that_moves_no_node_keeps_gentasks_tasks(monkeypatch):
    """The split always sets the model's stream and event numbers and head streams on the
    graph, to what they are when it moved no node (no edit: ComputeGraph.set_attr); GenTask's
    tasks stand then, only the totals taken afresh."""
    from ge_core.compiler import model_builder

    def regenerate(*args):
        raise AssertionError("tasks made again after a split that moved no node")
    monkeypatch.setattr(model_builder, "regenerate_tasks", regenerate)
    built = atc(parse_onnx(SAMPLES / "sync_patterns.onnx"), CompileOptions(dump=None),
                BuildOptions(dump=None)).built
    assert not built.streams.splits and built.ge_model.graph.attrs["event_num"] > 0
