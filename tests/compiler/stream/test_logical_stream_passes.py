"""GE's logical stream passes, rule by rule, on hand-built graphs with engines set by hand."""
import pytest

from ge_core.compiler.stream import StreamAllocationError, StreamOptions
from ge_core.compiler.stream.logical_stream_allocator import STAGE, LogicalStreamAllocator
from ge_core.passes import PassBegin
from npu_emu.base.trace import TraceBus, TraceRecorder
from npu_emu.world import World
from stream_testing import (AICORE, AICPU, GE_LOCAL, VECTOR, Builder, between,
                            if_with_body, streams)

HCCL = "DNN_HCCL"


def assign(builder: Builder, **options) -> LogicalStreamAllocator:
    allocator = LogicalStreamAllocator(StreamOptions(**options))
    allocator.assign(builder.graph)
    return allocator


def changed(allocator: LogicalStreamAllocator, pass_name: str) -> bool:
    return any(r.changed for r in allocator.history if r.name == pass_name)


def fork(**options) -> Builder:
    """x -> a -> {b, c} -> add -> out: two AI Core branches forked from an AI Core node."""
    g = Builder()
    g.data("x")
    g.add("a", inputs=["x"])
    g.add("b", inputs=["a"])
    g.add("c", inputs=["a"])
    g.add("add", "Add", VECTOR, inputs=["b", "c"])
    g.output("add")
    return g


def test_chain_of_one_engine_is_one_stream_and_ge_local_sources_get_none():
    g = Builder()
    g.data("x")
    g.add("w", "Const", GE_LOCAL)
    g.add("conv", "Conv", inputs=["x", "w"])
    g.add("relu", inputs=["conv"])
    g.output("relu")
    allocator = assign(g)
    assert streams(g.graph) == {"x": -1, "w": -1, "conv": 0, "relu": 0, "NetOutput": 0}
    assert [r.name for r in allocator.history] == [
        "UpdateForMdeGroupPass", "AssignByLabelPass", "IndependentStreamPass",
        "AssignByDependencyPass", "NodeStreamUpdatePass", "UpdateForParallelGroupPass",
        "AllReduceParallelPass", "UpdateForSkippedEnginePass",
        "OptimizeIneffectiveMultiStreamPass", "RefreshContinuousStreams"]
    assert {r.stage for r in allocator.history} == {STAGE}


def test_assign_by_dependency_sends_same_engine_branches_to_new_streams_round_robin():
    one = fork()
    assign(one)
    assert {s for n, s in streams(one.graph).items() if n in "abc"} == {0}
    two = fork()
    assign(two, stream_max_parallel_num=2)
    s = streams(two.graph)
    assert s["a"] == s["c"] != s["b"]  # a:0, b:1, then round-robin wraps to 0 for c
    three = fork()
    assign(three, stream_max_parallel_num=3)
    s = streams(three.graph)
    assert len({s["a"], s["b"], s["c"]}) == 3 and s["add"] not in (s["a"], s["b"], s["c"])


def test_assign_by_dependency_counts_a_forks_siblings_once(monkeypatch):
    """Whether a branch may reuse its fork's stream depends on the fork's other successors of
    its engine: counted once for the fork, not by each branch (a Split read by 4000 branches
    read 4000 siblings 4000 times). The streams are the rule's either way."""
    from ge_core.compiler.stream import stream_subgraph

    class Counted(list):
        reads = 0

        def __iter__(self):
            for item in super().__iter__():
                Counted.reads += 1
                yield item
    link = stream_subgraph._link

    def counted_link(subgraphs):
        link(subgraphs)
        for sg in subgraphs:
            sg.succs = Counted(sg.succs)
    monkeypatch.setattr(stream_subgraph, "_link", counted_link)
    width = 200
    g = Builder()
    g.data("x")
    g.add("a", inputs=["x"])
    for i in range(width):   # of another engine than the fork: no sibling ends the count early
        g.add(f"b{i}", "Relu", VECTOR, inputs=["a"])
    g.add("sum", "AddN", VECTOR, inputs=[f"b{i}" for i in range(width)])
    g.output("sum")
    assign(g, stream_max_parallel_num=4)
    s = streams(g.graph)
    # each branch a new Vector stream, round-robin over four; the join reuses the first
    assert (s["a"], sorted({s[f"b{i}"] for i in range(width)}), s["sum"]) == (0, [1, 2, 3, 4], 1)
    assert Counted.reads < 4 * width


def test_attach_engine_reuses_its_predecessors_stream():
    g = between("cpu", "TopK", AICPU)
    assign(g, stream_max_parallel_num=4)
    s = streams(g.graph)
    assert s["a"] == s["cpu"] == s["b"] == 0


def test_a_node_after_a_ge_local_one_follows_the_stream_that_one_reused():
    """a -> reshape -> b: reshape reused a's stream, so b (a's engine) may too, even with
    parallel streams on; a Vector node in reshape's place gives b a new stream."""
    g = between("reshape", "Reshape", GE_LOCAL)
    assign(g, stream_max_parallel_num=2)
    assert set(streams(g.graph).values()) == {-1, 0}
    v = between("v", "Add", VECTOR, arity=2)
    assign(v, stream_max_parallel_num=2)
    s = streams(v.graph)
    assert len({s["a"], s["v"], s["b"]}) == 3


def test_assign_by_label_gives_each_label_one_stream():
    g = Builder()
    g.data("x")
    g.add("a", inputs=["x"], _stream_label="L")
    g.add("b", inputs=["a"])
    g.add("c", inputs=["b"], _stream_label="L")
    g.add("d", inputs=["c"], _stream_label="M")
    g.output("d")
    allocator = assign(g)
    s = streams(g.graph)
    assert s["a"] == s["c"] and len({s["a"], s["b"], s["d"]}) == 3
    assert changed(allocator, "AssignByLabelPass")


def test_independent_engine_gets_a_stream_of_its_own_kept_only_where_it_overlaps():
    """IndependentStream puts the AllReduce on its own stream; in a plain chain it overlaps
    nothing, so OptimizeIneffectiveMultiStream moves it back (GE's own unit test
    AicoreHcclSerial_AssignSameStream), while beside a parallel branch it stays."""
    serial = Builder()
    serial.data("x")
    serial.add("a", inputs=["x"])
    serial.add("reduce", "HcomAllReduce", HCCL, inputs=["a"])
    serial.add("b", inputs=["reduce"])
    serial.output("b")
    allocator = assign(serial)
    assert changed(allocator, "IndependentStreamPass")
    assert set(streams(serial.graph).values()) == {-1, 0}
    parallel = Builder()
    parallel.data("x")
    parallel.add("a", inputs=["x"])
    parallel.add("reduce", "HcomAllReduce", HCCL, inputs=["a"])
    parallel.add("c", inputs=["a"])
    parallel.add("b", "Add", AICORE, inputs=["reduce", "c"])
    parallel.output("b")
    assign(parallel)
    s = streams(parallel.graph)
    assert s["reduce"] != s["a"] == s["c"] == s["b"]


def test_update_for_mde_group_gives_each_new_stream_id_value_a_stream():
    g = Builder()
    g.data("x")
    g.add("a", inputs=["x"], NewStreamId=1)
    g.add("b", inputs=["a"])
    g.add("c", inputs=["b"], NewStreamId=1)
    g.add("d", inputs=["c"], NewStreamId=2)
    g.output("d")
    allocator = assign(g)
    s = streams(g.graph)
    # b, alone on the chain's stream between a and c, then joins their stream
    assert s["a"] == s["b"] == s["c"] != s["d"]
    assert changed(allocator, "UpdateForMdeGroupPass")


def test_parallel_group_moves_together_and_hcom_group_reuses_its_input_stream():
    g = Builder()
    g.data("x")
    g.add("a", inputs=["x"])
    g.add("p1", inputs=["a"], _parallel_group="g1")
    g.add("p2", inputs=["a"], _parallel_group="g1")
    g.add("sum", "Add", AICORE, inputs=["p1", "p2"])
    g.add("reduce", "HcomAllReduce", HCCL, inputs=["sum"], _parallel_group="-1")
    g.output("reduce")
    allocator = assign(g)
    s = streams(g.graph)
    assert s["p1"] == s["p2"] != s["a"]
    assert s["reduce"] == s["sum"]
    assert changed(allocator, "UpdateForParallelGroupPass")


@pytest.mark.parametrize("hcom_parallel", [False, True])
def test_all_reduce_parallel_moves_the_reduces_successors_when_on(hcom_parallel):
    g = Builder()
    g.data("x")
    g.add("a", inputs=["x"])
    g.add("reduce", "HcomAllReduce", HCCL, inputs=["a"], fusion=1)
    g.add("b", inputs=["reduce"])
    g.add("c", inputs=["b"])
    g.output("c")
    before = streams(g.graph)
    allocator = assign(g, hcom_parallel=hcom_parallel)
    s = streams(g.graph)
    assert changed(allocator, "AllReduceParallelPass") == hcom_parallel
    assert (s["b"] != s["a"]) == hcom_parallel and s["b"] == s["c"]
    assert before != s


def test_skipped_engine_nodes_with_no_streamed_input_go_to_minus_one():
    g = Builder()
    g.data("x")
    g.add("shape", "Const", GE_LOCAL)
    g.add("reshape", "Reshape", GE_LOCAL, inputs=["x", "shape"])
    g.add("a", inputs=["reshape"])
    g.output("a")
    allocator = assign(g)
    assert streams(g.graph) == {"x": -1, "shape": -1, "reshape": -1, "a": 0, "NetOutput": 0}
    assert changed(allocator, "UpdateForSkippedEnginePass")


def test_skipped_engine_node_takes_the_one_stream_all_its_neighbours_share():
    """reshape cannot reuse the labelled a's stream, so it gets one of its own, then joins the
    stream both its neighbours are on."""
    g = Builder()
    g.data("x")
    g.add("a", inputs=["x"], _stream_label="L")
    g.add("reshape", "Reshape", GE_LOCAL, inputs=["a"])
    g.add("b", inputs=["reshape"], _stream_label="L")
    g.output("b")
    assign(g)
    s = streams(g.graph)
    assert s["reshape"] == s["a"] == s["b"]


def test_optimize_ineffective_multi_stream_moves_a_lone_node_back_but_not_a_pair():
    lone = between("v", "Add", VECTOR, arity=2)
    allocator = assign(lone)
    assert set(streams(lone.graph).values()) == {-1, 0}
    assert changed(allocator, "OptimizeIneffectiveMultiStreamPass")
    pair = Builder()
    pair.data("x")
    pair.add("a", inputs=["x"])
    pair.add("v1", "Add", VECTOR, inputs=["a", "a"])
    pair.add("v2", "Add", VECTOR, inputs=["v1", "v1"])
    pair.add("b", inputs=["v2"])
    pair.output("b")
    assign(pair)
    s = streams(pair.graph)
    assert s["v1"] == s["v2"] != s["a"] == s["b"]


def test_streams_are_renumbered_densely_from_zero():
    g = fork()
    assign(g, stream_max_parallel_num=3)
    used = set(streams(g.graph).values()) - {-1}
    assert used == set(range(len(used)))


def test_single_stream_puts_everything_on_one_stream():
    g = fork()
    allocator = assign(g, enable_single_stream=True, stream_max_parallel_num=4)
    assert set(streams(g.graph).values()) == {-1, 0}
    assert [r.name for r in allocator.history] == [
        "SingleStreamPass", "NodeStreamUpdatePass", "UpdateForSkippedEnginePass",
        "RefreshContinuousStreams"]


def test_single_stream_refuses_a_stream_label():
    g = fork()
    g.graph.find_node("b").op_desc.set_attr("_stream_label", "L")
    with pytest.raises(StreamAllocationError, match="conflicts with stream label 'L'"):
        assign(g, enable_single_stream=True)


def test_a_node_without_an_engine_is_named():
    g = fork()
    g.graph.find_node("b").op_desc.del_attr("engine")
    with pytest.raises(StreamAllocationError, match="node b .Relu.: engine None"):
        assign(g)


def test_a_body_starts_on_its_parents_stream():
    """The body's first new stream is the If's; label nodes of a body go there too."""
    g, body = if_with_body()
    body.add("r", inputs=["bx"])
    body.add("label", "LabelSet", "DNN_VM_RTS", _rts_label_node=True)
    body.output("r")
    assign(g, stream_max_parallel_num=4)
    s, inner = streams(g.graph), streams(body.graph)
    assert s["if"] == s["a"] == inner["r"] == inner["label"] == inner["NetOutput"]


def test_every_stream_id_write_is_a_trace_event_inside_a_pass():
    bus, recorder = TraceBus(), TraceRecorder()
    bus.subscribe(recorder)
    with World(bus=bus).entered():
        g = fork()
        assign(g, stream_max_parallel_num=2)
    begun = [e.pass_name for e in recorder.events if isinstance(e, PassBegin)]
    assert begun[:4] == ["UpdateForMdeGroupPass", "AssignByLabelPass", "IndependentStreamPass",
                         "AssignByDependencyPass"]
    writes = [e for e in recorder.events if type(e).__name__ == "AttrSet" and e.key == "stream_id"]
    assert {e.node for e in writes} == {"x", "a", "b", "c", "add", "NetOutput"}
