"""InsertSyncNodesByLogicStream on hand-built graphs with streams set by hand: events, GE's
three optimisations, the transitive-reduction minimum, notifies, StreamActive."""
import pytest

from ge_core.compiler.stream import (StreamAllocationError, StreamAllocator, StreamOptions,
                                     assign_streams, unordered_dependencies)
from ge_core.compiler.stream import sync_event_nodes
from ge_core.compiler.stream.stream_allocator import SYNC_STAGE
from ge_core.compiler.stream.sync_events import InsertSyncEvents, SyncState
from stream_testing import (VECTOR, Builder, if_with_body, nodes_of_type, streams,
                            triangle)


def sync(builder: Builder, **options):
    allocator = StreamAllocator(builder.graph, StreamOptions(**options))
    return allocator.insert_sync_nodes_by_logic_stream()


def sync_table(builder: Builder):
    """The events InsertSyncEvents makes, before any optimisation."""
    state = SyncState(builder.graph)
    InsertSyncEvents(state).run(builder.graph)
    return state.events


def counts(report) -> list[int]:
    return [n for _, n in report.event_counts]


def names(graph) -> list[str]:
    return [n.name for n in graph.topological_sort()]


def test_a_cross_stream_edge_gets_a_send_after_its_producer_and_a_recv_before_its_consumer():
    g = Builder()
    g.add("a", stream_id=0)
    g.add("b", inputs=["a"], stream_id=1)
    report = sync(g)
    send, recv = g.graph.find_node("g_Send_0"), g.graph.find_node("g_Recv_0")
    assert (send.type, recv.type) == ("Send", "Recv")
    assert send.op_desc.get_attr("event_id") == recv.op_desc.get_attr("event_id") == 0
    assert streams(g.graph) == {"a": 0, "b": 1, "g_Send_0": 0, "g_Recv_0": 1}
    assert send.in_control_nodes() == [g.graph.find_node("a")]
    assert recv.out_control_nodes() == [g.graph.find_node("b")]
    assert names(g.graph) == ["a", "g_Send_0", "g_Recv_0", "b"]
    assert g.graph.attrs["event_num"] == 1 and report.events == 1
    assert unordered_dependencies(g.graph) == []


def test_no_event_out_of_stream_minus_one_and_none_into_it():
    g = Builder()
    g.data("x", stream_id=-1)
    g.add("a", inputs=["x"], stream_id=1)
    assert sync(g).events_inserted == 0
    bad = Builder()
    bad.add("a", stream_id=0)
    bad.add("b", inputs=["a"], stream_id=-1)
    with pytest.raises(StreamAllocationError, match="node b .Relu. has no stream but must wait"):
        sync(bad)


def test_optimize_by_send_events_drops_a_later_wait_for_the_same_sender():
    g = triangle(("m", "n1", "n2"), (0, 1, 1))
    report = sync(g)
    assert counts(report)[:2] == [2, 1]
    assert names(g.graph) == ["m", "g_Send_0", "g_Recv_0", "n1", "n2"]


def test_optimize_by_recv_events_keeps_only_the_last_send_to_a_receiver():
    g = triangle(("m1", "m2", "n"), (0, 0, 1))
    report = sync(g)
    assert counts(report)[1:3] == [2, 1]
    # the survivor was event 1; dense renumbering makes it 0, after m2
    assert names(g.graph) == ["m1", "m2", "g_Send_0", "g_Recv_0", "n"]


def test_event_ids_are_dense_in_the_order_their_senders_run():
    g = Builder()
    g.add("a", stream_id=0)
    g.add("b", stream_id=1)
    g.add("c", inputs=["b"], stream_id=2)
    g.add("d", inputs=["a"], stream_id=2)
    sync(g)
    send_of = {n.in_control_nodes()[0].name: n.op_desc.get_attr("event_id")
               for n in nodes_of_type(g.graph, "Send")}
    assert send_of == {"a": 0, "b": 1}


def diamond() -> Builder:
    """a forks to b (stream 0) and d (stream 1); b -> c (stream 1) -> e <- d.

        stream 0   a ---> b
                    \\      \\
        stream 1     \\      c -> d -> e      a -> d's event is implied by b -> c's
                      `---------^
    """
    g = Builder()
    g.add("a", stream_id=0)
    g.add("b", inputs=["a"], stream_id=0)
    g.add("c", inputs=["b"], stream_id=1)
    g.add("d", inputs=["a"], stream_id=1)
    g.add("e", "Add", inputs=["c", "d"], stream_id=1)
    return g


def test_a_diamond_where_ges_rules_leave_one_redundant_event():
    g = diamond()
    report = sync(g)
    assert report.events == 2 and report.events_minimum == 1
    assert report.redundant_found == 1 and report.redundant_removed == 0
    assert unordered_dependencies(g.graph) == []


def test_minimise_events_removes_the_redundant_one_and_keeps_everything_ordered():
    g = diamond()
    report = sync(g, minimise_events=True)
    assert report.events == report.events_minimum == 1 and report.redundant_removed == 1
    assert [n for n, _ in report.event_counts][-3] == "OptimizeByTransitiveReduction"
    (send,) = nodes_of_type(g.graph, "Send")
    assert send.in_control_nodes()[0].name == "b"
    assert unordered_dependencies(g.graph) == []


def test_notify_variant():
    g = diamond()
    report = sync(g, use_notify=True)
    assert report.sync_kind == "notify" and g.graph.attrs["notify_num"] == 2
    assert {n.type for n in g.graph if n.name.startswith("g_")} == {"SendNotify", "RecvNotify"}
    send = g.graph.find_node("g_Send_Notify_0")
    recv = g.graph.find_node("g_Recv_Notify_0")
    assert send.op_desc.get_attr("notify_id") == recv.op_desc.get_attr("notify_id") == 0
    assert not nodes_of_type(g.graph, "Send") and unordered_dependencies(g.graph) == []


def test_too_many_notifies(monkeypatch):
    monkeypatch.setattr(sync_event_nodes, "MAX_NOTIFY_NUM", 1)
    with pytest.raises(StreamAllocationError, match="needs 2 notifies; the device has 1"):
        sync(diamond(), use_notify=True)


def test_a_taken_name_gets_reuse_suffix():
    g = Builder()
    g.add("g_Send_0", stream_id=0)
    g.add("b", inputs=["g_Send_0"], stream_id=1)
    sync(g)
    assert g.graph.find_node("g_Send_0_Reuse_1").type == "Send"


def test_each_step_is_a_pass_table_row_with_the_events_left():
    report = sync(diamond())
    steps = [(r.stage, r.name) for r in report.passes]
    assert steps == [(SYNC_STAGE, name) for name in (
        "SetLogicStreamIdAttr", "SetActiveStreamsByLabel", "SetActiveStreamsForSubgraphs",
        "InsertSyncEvents", "OptimizeBySendEvents", "OptimizeByRecvEvents",
        "OptimizeByStreamActivate", "RefreshContinuousEvents", "GenerateSyncEventNodes")]
    assert dict(report.passes[3].detail) == {"events": 2}


def test_logic_stream_id_is_recorded():
    g = diamond()
    sync(g)
    assert all(n.op_desc.get_attr("_logic_stream_id") == n.op_desc.get_attr("stream_id")
               for n in g.graph)


def test_no_event_into_a_stream_its_activator_starts_after_the_sender():
    """s -> r across streams, but r's stream (label L) is started by act, which runs after s:
    the activation orders them (OptimizeByStreamActivate); s -> act still needs its event."""
    g = Builder()
    g.add("s", stream_id=0)
    g.add("act", "StreamActive", "DNN_VM_RTS", ctrl=["s"], stream_id=1,
          _active_label_list=["L"])
    g.add("r", inputs=["s"], stream_id=2, _stream_label="L")
    report = sync(g)
    assert counts(report)[:4] == [2, 2, 2, 1]
    assert g.graph.find_node("act").op_desc.get_attr("active_stream_list") == [2]
    assert report.head_streams == (0, 1) and report.activated_streams == (2,)
    assert unordered_dependencies(g.graph) == []


def test_a_bodys_extra_stream_is_started_by_a_stream_active_on_the_parents_stream():
    g, body = if_with_body()
    body.add("r", inputs=["bx"])
    body.add("v1", "Add", VECTOR, inputs=["r", "r"])
    body.add("v2", "Add", VECTOR, inputs=["v1", "v1"])
    body.output("v2")
    report = assign_streams(g.graph)
    parent_stream = streams(g.graph)["if"]
    (active,) = nodes_of_type(body.graph, "StreamActive")
    extra = streams(body.graph)["v1"]
    assert extra != parent_stream
    assert active.op_desc.get_attr("stream_id") == parent_stream
    assert active.op_desc.get_attr("active_stream_list") == [extra]
    assert active.op_desc.get_attr("_subgraph_first_active") is True
    assert body.graph.topological_sort()[0] is active
    assert report.head_streams == (parent_stream,) and report.activated_streams == (extra,)
    assert g.graph.attrs["head_streams"] == [parent_stream]
    # r -> v1 inside the body, and the body's end -> the parent's consumer
    assert report.events == 2 and unordered_dependencies(g.graph) == []


def test_no_event_out_of_a_loops_enter_unless_into_a_stream_active():
    g = Builder()
    g.add("enter", "Enter", "DNN_VM_RTS", stream_id=0)
    g.add("body", inputs=["enter"], stream_id=1)
    g.add("act", "StreamActive", "DNN_VM_RTS", ctrl=["enter"], stream_id=2)
    assert [(e.src.name, e.dst.name) for e in sync_table(g)] == [("enter", "act")]


def test_events_leave_an_inlined_if_only_from_its_leaving_label_set():
    """An If lowered to labels, its branches t and e on stream 1, its own nodes on stream 0 and
    its consumer on stream 2. The else branch's copy is skipped when then is taken, so an event
    from it would never be recorded; GE sends a body's events out only from its end node
    (stream_allocator.cc, InsertEventsForSubgraph), here the leaving LabelSet."""
    g = Builder()
    spine = {"stream_id": 0, "_label_region": "g/if"}
    g.add("switch", "LabelSwitchByIndex", "DNN_VM_RTS", **spine)
    for branch, (body, entry) in enumerate([("t", "switch"), ("e", "goto")]):
        g.add(f"set_{body}", "LabelSet", "DNN_VM_RTS", ctrl=[entry], **spine)
        g.add(body, ctrl=[f"set_{body}"], stream_id=1, _label_bodies=[f"g/if:{branch}"])
        g.add(f"copy_{body}", "MemcpyAsync", "DNN_VM_RTS", inputs=[body], **spine)
        if body == "t":
            g.add("goto", "LabelGotoEx", "DNN_VM_RTS", ctrl=["copy_t"], **spine)
    g.add("leave", "LabelSet", "DNN_VM_RTS", ctrl=["copy_e"], **spine)
    g.add("out", inputs=["copy_e"], ctrl=["leave"], stream_id=2)
    assert [(e.src.name, e.dst.name) for e in sync_table(g)] == [
        ("t", "copy_t"), ("e", "copy_e"), ("leave", "out")]
