"""Reuse across streams: only where an event (a cross-stream edge) orders two tensors."""
import dataclasses

import pytest

from ge_core.compiler.memory import (ASSIGNERS, MemoryOptions, MemoryOverlapError,
                                     assign_memory, check_no_overlap, find_overlaps)
from mem_testing import BLOCK, GraphBuilder, overlaps, relu_then_reshape


def ping_pong() -> GraphBuilder:
    """a (s0) -> b (s1) -> c (s0) -> d (s0): the b -> c edge gets an event, so c runs after b
    has read a. b's output is big, so BinaryBlock has two buckets."""
    g = GraphBuilder()
    x = g.data()
    a = g.node("a", "Relu", x, stream=0)
    b = g.node("b", "Relu", a, stream=1, shape=(1000,))
    c = g.node("c", "Relu", b, stream=0)
    g.output(g.node("d", "Relu", c, stream=0))
    return g


@pytest.mark.parametrize("assigner", ["binary-block", "greedy_by_size", "best_fit_search"])
def test_an_event_lets_a_tensor_read_on_another_stream_be_reused(assigner):
    plan = assign_memory(ping_pong().graph, MemoryOptions(assigners=(assigner,)))
    check_no_overlap(plan)
    # a's last reader ran on stream 1, so a never went back to stream 0's pool; GE reuses it
    # only by lifetime (ReuseBlocksByLifeTime), which the event makes safe.
    assert plan.row("a:0").offset == plan.row("c:0").offset
    assert plan.feature_map_bytes == plan.lower_bound_bytes == 4096 + BLOCK


def two_branches(split: bool) -> GraphBuilder:
    """x -> p -> q and x -> r -> s, joined by an Add. Split: r and s on stream 1."""
    g = GraphBuilder()
    x = g.data()
    p = g.node("p", "Relu", x)
    q = g.node("q", "Relu", p)
    r = g.node("r", "Relu", x, stream=1 if split else 0)
    s = g.node("s", "Relu", r, stream=1 if split else 0)
    g.output(g.node("join", "Add", q, s))
    return g


def test_one_stream_shares_what_two_unordered_streams_must_not():
    one = assign_memory(two_branches(split=False).graph)
    assert one.row("p:0").offset == one.row("r:0").offset  # p is done before r starts
    for name in ASSIGNERS:
        two = assign_memory(two_branches(split=True).graph, MemoryOptions(assigners=(name,)))
        check_no_overlap(two)
        fm = two.segment("feature_map")
        assert not any(overlaps(a, b) for a in fm for b in fm if a is not b), name


def test_the_checker_sees_unordered_streams_as_alive_together():
    one = assign_memory(two_branches(split=False).graph)
    two = assign_memory(two_branches(split=True).graph)
    check_no_overlap(one)
    wrong = dataclasses.replace(one, order=two.order)  # one stream's layout, two streams' order
    found = find_overlaps(wrong)
    assert [(o.a.label, o.b.label) for o in found] == [("p:0", "r:0")]
    with pytest.raises(MemoryOverlapError, match="p:0 .* and r:0 .*alive at the same time"):
        check_no_overlap(wrong)


def test_a_control_edge_orders_like_a_data_edge():
    g = two_branches(split=True)
    g.control(g.graph.find_node("q"), g.graph.find_node("r"))  # r waits for q: an event
    plan = assign_memory(g.graph, MemoryOptions(assigners=("best_fit_search",)))
    check_no_overlap(plan)
    assert plan.row("p:0").offset == plan.row("r:0").offset


def test_ge_local_nodes_pass_the_order_through():
    """a (s0) -> Reshape (no stream) -> b (s1): b still runs after a."""
    g, _, a, r = relu_then_reshape()
    b = g.node("b", "Relu", r, stream=1)
    c = g.node("c", "Relu", b, stream=1)
    g.output(g.node("d", "Relu", c, stream=1))
    plan = assign_memory(g.graph, MemoryOptions(assigners=("best_fit_search",)))
    check_no_overlap(plan)
    op = plan.op_names.index
    assert plan.order.before([op("a")], [op("b")])
    assert not plan.order.before([op("b")], [op("a")])
    assert plan.row("a:0").offset == plan.row("c:0").offset


def test_a_no_task_concat_written_on_two_streams_takes_no_block_one_of_them_freed():
    """t is read on its own stream (s1), so its block goes back to s1's pool; the Concat's
    inputs, v on s1 and w on s0, lie in one block, which took t's: w, unordered with t's reader,
    wrote over t while it was read (a random network gave a wrong output on the device)."""
    from ge_core.passes.concat_notask_pass import ConcatNotaskPass, is_no_task
    g = GraphBuilder()
    x = g.data()
    t = g.node("t", "Relu", x, stream=1)
    u = g.node("u", "Relu", t, stream=1)
    v = g.node("v", "Relu", u, stream=1)
    w = g.node("w", "Relu", x, stream=0)
    cat = g.node("cat", "Concat", v, w, shape=(240,), stream=1, axis=0)
    g.output(g.node("after", "Relu", cat, shape=(240,), stream=1))
    ConcatNotaskPass().run(g.graph)
    assert is_no_task(g.graph.find_node("cat"))
    for name in ASSIGNERS:
        check_no_overlap(assign_memory(g.graph, MemoryOptions(assigners=(name,))))
