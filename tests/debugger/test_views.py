"""The read-only views the TUI draws, without a terminal: checked against the engine's own
records (the graph's anchors, the pass records, the memory plan, the scheduler's SQEs) and
against the REPL's answers for the same state."""
from __future__ import annotations

from debugger_testing import DEVRUN, ROOT, TINY, debugger, finished, stopped

from ge_core.graph.attr_names import STREAM_ID
from workbench.commands.session import DebugSession
from workbench.debugger.views.device_state import (TaskNodes, node_of_task, stream_columns,
                                                   wait_for_chain)
from workbench.debugger.views.graph_table import (find_node, node_anchors, node_row, ordered,
                                                  shown_graphs)
from workbench.debugger.views.graph_views import diff
from workbench.debugger.views.memory_map import buffers_of, memory_view
from workbench.debugger.views.pass_tree import PassSpans, pass_tree, span_diff
from workbench.debugger.views.step_changes import ChangeRecorder, DescChange
from workbench.debugger.views.timeline_lanes import LaneRecorder, end_ns, lanes


def test_shown_graphs_list_every_node_with_its_columns_and_anchors_name_the_peers():
    d = debugger(TINY)
    d.step("stage", 2)
    shown = shown_graphs(d.state)
    assert [s.graph.name for s in shown] == ["tiny_cnn"]
    rows = {r.name: r for r in map(node_row, ordered(shown[0].graph))}
    assert set(rows) == {n.name for n in d.state.graph.nodes}
    assert rows["conv1"].cells[:2] == ("conv1", "Conv")
    relu = find_node(d.state, "tiny_cnn", "relu1")
    anchors = {a.anchor: a for a in node_anchors(relu)}
    assert anchors["in 0"].peers == (f"%{relu.in_data_anchors[0].peer.label}",)
    assert anchors["out 0"].peers == tuple(f"%{p.label}" for p in relu.out_data_anchors[0].peers)
    d.step("stage", 3)   # partitioned: one section per engine subgraph
    titles = [s.title for s in shown_graphs(d.state)]
    assert any(t.startswith("engine partition tiny_cnn_1_AIcoreEngine") for t in titles)
    d.close()


def test_the_change_recorder_gives_each_stream_id_old_and_new_as_the_node_has_it():
    d = debugger(TINY)
    changes = ChangeRecorder()
    changes.attach(d)
    stopped(d.run_to(["pass", "NodeStreamUpdatePass"]))
    stopped(d.step("pass"))
    changed = changes.changes.changed()
    streams = {name: cols["stream"] for name, cols in changed.items() if "stream" in cols}
    assert len(streams) >= 10
    for name, (old, new) in streams.items():
        assert old == "-" and new == f"s{d.state.find_node(name).op_desc.get_attr(STREAM_ID)}"
    assert not changes.changes.structural
    d.close()


def test_the_change_recorder_relinks_alike_whether_edge_edits_reach_it_as_fields_or_events():
    """Alone with the gate, the recorder hears an edge's link and unlink as fields (no event is
    built); with the trace hash's observer beside, as events: the same nodes relinked."""
    relinked = []
    for trace_hash in (False, True):
        d = debugger(TINY, trace_hash=trace_hash)
        changes = ChangeRecorder()
        changes.attach(d)
        stopped(d.step("stage", 3))   # to the engine partitions: their edges relinked
        relinked.append(list(changes.changes.relinked))
        d.close()
    assert relinked[0] and relinked[0] == relinked[1]


def test_the_change_recorder_keeps_each_desc_by_side_and_index_first_old_to_last_new():
    """InferShapeForPreprocess, run whole: the Reshape's output and its reader's input, each
    from the parse's desc to the inferred one, by side and index (not a cell named "input 0");
    a desc is no cell of the row."""
    d = debugger("sample_models/fold_and_infer.onnx")
    changes = ChangeRecorder()
    changes.attach(d)
    stopped(d.run_to(["pass", "InferShapeForPreprocess"]))
    stopped(d.finish())
    descs = changes.changes.changed_descs()
    assert descs["reshape"] == [DescChange("output", 0, "f32[?,?]", "f32[2,12]")]
    assert descs["add_ones"][0] == DescChange("input", 0, "f32[?,?]", "f32[2,12]")
    assert {"reshape", "add_ones"} <= changes.changes.nodes()
    assert not any(" " in column for cols in changes.changes.cells.values() for column in cols)
    d.close()


def test_the_pass_tree_follows_the_pass_records_and_a_pass_diff_is_the_diff_command():
    d = debugger(TINY)
    spans = PassSpans()
    spans.attach(d)
    stopped(d.run_to(["pass", "IdentityPass"]))
    stopped(d.finish())
    stages = pass_tree(spans, d.tick)
    ran = [p for s in stages for p in s.passes if p.end is not None]
    records = d.state.pipeline.result.passes
    assert [(p.name, p.graph, p.changed) for p in ran] == \
        [(r.name, r.graph, r.changed) for r in records]
    assert [s.name for s in stages][:2] == ["Prepare", "OptimizeOriginalGraph"]
    assert all(p.seconds is not None and p.seconds >= 0 for p in ran)   # CPU, never parked
    group = next(p for p in ran if p.name == "OptimizeStage1_2")
    assert span_diff(d, group) == diff(d)   # the diff command shows the pass just finished
    assert "right_identity" in span_diff(d, group).text
    d.close()


def test_a_distributed_task_is_named_by_its_node_in_its_stream_column():
    d = debugger(TINY)
    nodes = TaskNodes()
    nodes.attach(d)
    d.add_breakpoint(["distribute", "type=event_record"])
    stopped(d.cont())
    stopped(d.step("task"))
    columns = stream_columns(d.run.world.runtime, nodes.nodes)
    record = next(e for c in columns for e in c.window if e.name.startswith("EventRecord"))
    assert record.node.endswith("Send_0") and record.task_type == "event_record"
    stopped(d.run_to(["sqe", "type=model_execute"]))   # loaded: its task list says the same
    by_model = node_of_task(d.state)
    assert by_model and all(by_model[task] == node for task, node in nodes.nodes.items())
    d.close()


def test_the_wait_for_chain_is_the_deadlock_report_s_and_the_source_line_is_placed():
    d = debugger(f"{DEVRUN}/deadlock.py")
    d.add_breakpoint(["fault", "deadlock"])
    stopped(d.cont())
    event = d.run.parked_at
    chain = wait_for_chain(d.run.world.runtime)
    # the runtime's report says "stream 2" where the pane names it rt2
    assert len(chain) == 1 and chain[0].partition(" waits at ")[2] in event.message
    program = d.state.program
    frames = program.frames()
    assert frames[0].line == 24 and "synchronize_stream" in frames[0].text
    assert d.state.host_where(event) == "deadlock.py:24 in <module>"
    source = d.target.path.read_text().splitlines()
    submitted = program.submitted
    assert submitted and all("acl.rt." in source[s.site.line - 1] for s in submitted.values())
    # the wait that never passes was submitted by line 21, the kernel behind it by line 22
    assert {key: s.site.line for key, s in submitted.items() if key[0] == 2} == \
        {(2, 0): 21, (2, 1): 22}
    d.close()


def test_the_memory_view_draws_the_plan_s_buffers_and_finds_a_node_s():
    d = debugger(TINY)
    d.add_breakpoint(["distribute"])
    stopped(d.cont())
    view = memory_view(d.state)
    plan = d.state.built.memory
    assert {r.label for r in view.rows} == {r.label for r in plan.rows}   # every buffer
    order = list(dict.fromkeys(r.segment for r in view.rows))   # each segment's rows together
    assert order == ["feature_map", "zero_copy_input", "zero_copy_output", "weight"]
    assert sum(1 for a, b in zip(view.rows, view.rows[1:]) if a.segment != b.segment) == 3
    weights = [r for r in view.rows if r.segment == "weight"]
    assert {r.label for r in weights} >= {"fc.w:0", "left.w:0"}
    assert sum(r.size for r in weights) <= plan.weight_bytes
    assert view.ops == len(plan.op_names)
    assert buffers_of(view, "relu1") == {"relu1:0"}
    d.close()


def test_the_lanes_count_each_stream_s_sqes_and_the_units_in_use():
    d = debugger(TINY)
    recorder = LaneRecorder()
    recorder.attach(d)
    d.cont()
    tl = recorder.timeline
    by_stream = {}
    for s in tl.slices:
        by_stream[s[1]] = by_stream.get(s[1], 0) + 1
    shown = {lane.name: lane for lane in lanes(tl, 0, end_ns(tl), 60)}
    for stream, count in by_stream.items():
        assert shown[f"rt{stream}"].sqes == count
    assert "#" in shown["rt1"].cells and len(shown["rt1"].cells) == 60
    ai_core = next(lane for name, lane in shown.items() if name.startswith("AI_CORE x"))
    assert ai_core.cells.strip(".")   # the convolutions held a core
    d.close()


def test_list_and_backtrace_show_where_a_host_program_is_and_a_model_s_frames():
    s = DebugSession(ROOT)
    s.execute(f"target {DEVRUN}/deadlock.py")
    s.execute("break fault deadlock")
    s.execute("continue")
    listed = s.execute("list")[0].text.splitlines()
    assert listed[0] == "deadlock.py:24"
    assert any(line.startswith("=>  24  ret = acl.rt.synchronize_stream") for line in listed)
    assert s.execute("bt")[0].text == ("> #0  deadlock.py:24 in <module>: "
                                       "ret = acl.rt.synchronize_stream(consumer)")
    s.execute(f"target {TINY}")
    assert "not a host program" in s.execute("list")[0].message
    s.execute("break pass ConstantFoldingPass")
    s.execute("continue")
    assert s.execute("backtrace")[0].text.splitlines() == [
        "#0  node %input (Data) of graph tiny_cnn", "#1  node pass ConstantFoldingPass",
        "#2  pass InferShapeForPreprocess on graph tiny_cnn", "#3  stage Prepare",
        "#4  phase compile"]
    s.close()


def test_build_passes_can_be_broken_on():
    d = debugger(TINY)
    d.add_breakpoint(["pass", "AssignByDependencyPass"])
    assert "AssignByDependencyPass" in stopped(d.cont()).event
    d.close()



def test_a_stream_waiting_in_a_healthy_run_is_blocked_but_no_wait_for_chain():
    d = debugger(TINY)
    d.add_breakpoint(["wait", "event"])
    stopped(d.cont())   # stream 2 reached its wait before stream 1 recorded the event
    rt = d.run.world.runtime
    states = {c.stream: c.state for c in stream_columns(rt, {})}
    assert "blocked on event 0" in states.values()
    assert wait_for_chain(rt) == []
    d.close()


def test_a_node_is_added_removed_or_moved_by_its_count_over_the_command():
    """A node the parse made, moved by Partition into an engine subgraph (removed from the root,
    added there: ComputeGraph.move_node) and fused away there, read as one that was there
    before and was removed: a continue from the start said `-9 nodes (conv1, ...)` of a graph
    that had none. A node there before the command and moved reads as moved (relinked)."""
    from ge_core.graph.events import NodeAdded, NodeRemoved
    recorder = ChangeRecorder()
    for cls, graph, node in [
            (NodeAdded, "g", "conv"), (NodeRemoved, "g", "conv"), (NodeAdded, "g_1", "conv"),
            (NodeRemoved, "g_1", "conv"),                      # new, moved, fused away
            (NodeAdded, "g", "relu"), (NodeRemoved, "g", "relu"), (NodeAdded, "g_1", "relu"),
            (NodeRemoved, "g_1", "relu"), (NodeAdded, "g", "relu"),   # new, there and back
            (NodeRemoved, "g", "old"), (NodeAdded, "g_1", "old"),     # there before, moved
            (NodeRemoved, "g", "gone")]:                              # there before, removed
        recorder.record(cls(0, graph, node, "Relu") if cls is NodeAdded else cls(0, graph, node))
    ch = recorder.changes
    assert (list(ch.added), list(ch.removed), list(ch.relinked)) == (["relu"], ["gone"], ["old"])


def test_a_continue_from_the_start_removes_no_node_that_was_never_there():
    d = debugger(TINY)
    recorder = ChangeRecorder()
    recorder.attach(d)
    finished(d.cont())
    ch = recorder.changes
    assert ch.added and not ch.removed, list(ch.removed)
    # (added also names the partitions' PlaceHolder and End nodes, whose graphs were dropped
    # whole at the merge, not removed node by node: the graph pane keeps the live ones)
    assert {n.name for g in d.state.graphs() for n in g.all_nodes()} <= set(ch.added)
    d.close()
