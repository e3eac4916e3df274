"""Tasks and OMs from the real build: the stream allocator (with sync events and a stream split
budgeted by task_count) and the memory assigner, instead of the hand-made annotations."""
from collections import Counter

import pytest

from build_testing import LIGHT, place_unplaced
from ge_core.compiler import CompileOptions, compile_graph, memory, stream
from ge_core.compiler.task import build_ge_model, task_count
from ge_core.graph import dump_graph
from ge_core.om import ModelTaskType, load_om, save_om
from ge_core.parser import parse_onnx

T = ModelTaskType


def real_build(model: str, max_task_count: int | None = None):
    graph = parse_onnx(LIGHT / f"light_{model}.onnx")
    compile_graph(graph, CompileOptions(dump=None))
    place_unplaced(graph)
    stream.assign_streams(graph)
    memory.assign_memory(graph)
    if max_task_count is not None:
        stream.split_streams(graph, task_count, stream.StreamOptions(max_task_count=max_task_count))
    return graph


@pytest.mark.parametrize("model, max_task_count", [("squeezenet", None), ("inception_v1", None),
                                                   ("shufflenet", 40)])
def test_real_build_tasks_agree_with_the_allocators_and_survive_the_file(model, max_task_count,
                                                                          tmp_path):
    graph = real_build(model, max_task_count)
    built = build_ge_model(graph)
    assert built.stream_num == graph.attrs["stream_num"] > 1
    assert built.task_def.event_num == graph.attrs["event_num"] > 0
    assert built.head_streams == list(graph.attrs["head_streams"])
    # Each event is recorded once, waited for, and recorded on another stream than its wait.
    records = Counter(t.event_id for t in built.task_def.task if t.type == T.EVENT_RECORD)
    waits = {t.event_id: t.stream_id for t in built.task_def.task if t.type == T.EVENT_WAIT}
    assert set(records) == set(waits) and set(records.values()) == {1}
    streams_of = {t.event_id: t.stream_id for t in built.task_def.task
                  if t.type == T.EVENT_RECORD}
    assert all(streams_of[e] != s for e, s in waits.items())
    # Per stream, the tasks keep the nodes' topological order.
    order = {n.name: k for k, n in enumerate(graph.topological_sort())}
    for tasks in built.tasks_by_stream().values():
        positions = [order[built.op(t.id).name] for t in tasks]
        assert positions == sorted(positions)
    save_om(built, tmp_path / "m.om")
    loaded = load_om(tmp_path / "m.om")
    assert loaded.task_def == built.task_def and dump_graph(loaded.graph) == dump_graph(graph)
