"""Reuse on one stream: GE's ref counting, GE-local aliases, what is never reused, continuous
blocks."""
import pytest

from ge_core.compiler.memory import ASSIGNERS, MemoryOptions, assign_memory, check_no_overlap
from ge_core.passes.concat_notask_pass import ConcatNotaskPass
from mem_testing import (BLOCK, GraphBuilder, chain, offset, overlaps, relu_then_reshape,
                         relus)


@pytest.mark.parametrize("assigner", list(ASSIGNERS))
def test_a_chain_reuses_two_blocks(assigner):
    plan = assign_memory(chain(6).graph, MemoryOptions(assigners=(assigner,)))
    check_no_overlap(plan)
    # op1..op5 live one op each; op6's output goes to the user's buffer.
    assert plan.feature_map_bytes == 2 * BLOCK == plan.lower_bound_bytes
    assert offset(plan, "op1:0") == offset(plan, "op3:0") == offset(plan, "op5:0")
    assert offset(plan, "op2:0") == offset(plan, "op4:0") != offset(plan, "op1:0")
    assert plan.no_reuse_bytes == 5 * BLOCK


def test_zero_copy_blocks_are_never_reused():
    b = GraphBuilder()
    x = b.data()
    a = b.node("a", "Relu", x)
    y = b.node("y", "Relu", a)       # returned, but read on by z too
    z = b.node("z", "Relu", y)
    w = b.node("w", "Relu", z)
    b.output(y, w)
    plan = assign_memory(b.graph)
    check_no_overlap(plan)
    fm = plan.segment("feature_map")
    assert {r.label for r in fm} == {"a:0", "z:0"}
    for label in ("x:0", "y:0", "w:0"):
        row = plan.row(label)
        assert row.offset >= plan.feature_map_bytes
        assert not any(overlaps(row, r) for r in plan.rows if r is not row)


def fan_out() -> GraphBuilder:
    """a feeds b, c and d; e = b + c + d comes after all of them."""
    g, n = relus(("a", "x"), ("b", "a"), ("c", "a"), ("d", "a"))
    e = g.node("e", "Sum", n["b"], n["c"], n["d"])
    f = g.node("f", "Relu", e)
    g.output(f)
    return g


def test_ref_count_keeps_a_fanned_out_tensor_until_its_last_consumer():
    plan = assign_memory(fan_out().graph, MemoryOptions(assigners=("binary-block",)))
    check_no_overlap(plan)
    a = plan.row("a:0")
    assert (a.first, a.last) == (1, 4)          # written by op 1, last read by d (op 4)
    for label in ("b:0", "c:0", "d:0"):
        assert not overlaps(a, plan.row(label))
    assert offset(plan, "e:0") == a.offset      # free again after d: e takes it
    assert plan.feature_map_bytes == 4 * BLOCK == plan.lower_bound_bytes


def test_ge_local_ops_alias_their_input_and_extend_its_life():
    b, x, a, r = relu_then_reshape()
    f = b.node("f", "Flatten", r, stream=-1)
    c = b.node("c", "Relu", x)                  # runs while a is still needed (through f)
    d = b.node("d", "Add", f, c)
    b.output(d)
    plan = assign_memory(b.graph)
    check_no_overlap(plan)
    row = plan.row("a:0")
    assert row.aliases == ("r:0", "f:0")
    assert plan.row("f:0") is row and row.last == plan.op_names.index("d")
    assert not overlaps(row, plan.row("c:0"))
    for name in ("r", "f"):
        node = b.graph.find_node(name).op_desc
        assert node.get_attr("output_offset") == [row.offset]
        assert node.get_attr("input_offset")[0] == row.offset


def test_no_reuse_mem_flag_and_op_no_reuse_mem_keep_a_block_to_themselves():
    for options, attrs in ((MemoryOptions(), {"no_reuse_mem_flag": True}),
                           (MemoryOptions(no_reuse_ops=("op2",)), {})):
        b = chain(6)
        for k, v in attrs.items():
            b.graph.find_node("op2").op_desc.set_attr(k, v)
        for name in ASSIGNERS:
            plan = assign_memory(b.graph, MemoryOptions(
                no_reuse_ops=options.no_reuse_ops, assigners=(name,)))
            check_no_overlap(plan)
            mine = plan.row("op2:0")
            assert not any(overlaps(mine, r) for r in plan.rows if r is not mine), name
            assert plan.feature_map_bytes == 3 * BLOCK == plan.lower_bound_bytes, name


def test_disable_reuse_gives_every_tensor_its_own_block():
    plan = assign_memory(chain(6).graph, MemoryOptions(disable_reuse=True))
    check_no_overlap(plan)
    assert plan.feature_map_bytes == plan.no_reuse_bytes == 5 * BLOCK
    assert plan.lower_bound_bytes == 2 * BLOCK  # what reuse would reach


def concat_graph() -> GraphBuilder:
    """concat(p, q, t); u lives between p and t, before q is born, so it may share with q."""
    b, n = relus(("p", "x"), ("u", "p"), ("t", "u"))
    q = b.node("q", "Relu", n["x"], shape=(500,))
    c = b.node("concat", "Concat", n["p"], q, n["t"], shape=(860,))
    b.output(c)
    return b


def test_concat_inputs_continuous_when_the_op_asks():
    b = concat_graph()
    b.graph.find_node("concat").op_desc.set_attr("continuous_input", True)
    plan = assign_memory(b.graph)
    check_no_overlap(plan)
    p, q, t = (plan.row(f"{n}:0") for n in "pqt")
    assert (q.offset, t.offset) == (p.offset + BLOCK, p.offset + BLOCK + 2048)  # 2032 -> 2048
    assert not overlaps(plan.row("u:0"), q)  # a continuous block is never reused
    assert plan.feature_map_bytes == 3072 + BLOCK == plan.lower_bound_bytes
    assert plan.warnings == ()


def test_concat_inputs_are_not_continuous_by_default():
    plan = assign_memory(concat_graph().graph)
    check_no_overlap(plan)
    assert plan.feature_map_bytes == 3072 == plan.lower_bound_bytes  # u shares with q


def no_task_concat() -> GraphBuilder:
    """a, b (f32[1,8] and f32[1,24]: 32 and 96 data bytes) -> no-task concat -> r, then k
    reuses what the concat's block held."""
    b = GraphBuilder()
    x = b.data(shape=(1, 8))
    a = b.node("a", "Relu", x, shape=(1, 8))
    c = b.node("c", "Relu", x, shape=(1, 24))
    cat = b.node("cat", "Concat", a, c, shape=(1, 32), axis=1)
    r = b.node("r", "Relu", cat, shape=(1, 32))
    k = b.node("k", "Relu", r, shape=(1, 32))
    b.output(b.node("y", "Relu", k, shape=(1, 32)))
    assert ConcatNotaskPass().run(b.graph)
    return b


def test_a_no_task_concats_inputs_lie_end_to_end_inside_its_output():
    plan = assign_memory(no_task_concat().graph)
    check_no_overlap(plan)
    a, c, cat = plan.row("a:0"), plan.row("c:0"), plan.row("cat:0")
    assert (a.offset, c.offset) == (cat.offset, cat.offset + 32)   # no padding between
    assert (a.size, c.size, a.within, c.within) == (32, 96, "cat:0", "cat:0")
    assert cat.last == plan.row("r:0").first
    # the block is reused once r has read the concat: k takes it
    assert plan.row("k:0").offset == cat.offset


def test_continuous_input_that_cannot_be_honoured_says_why():
    b = GraphBuilder()
    x = b.data()
    p = b.node("p", "Relu", x)
    c = b.node("concat", "Concat", x, p, continuous_input=True)
    b.output(c)
    plan = assign_memory(b.graph)
    check_no_overlap(plan)
    assert plan.warnings == ("concat: continuous input not honoured: x:0 is in the "
                             "zero_copy_input segment",)


def test_continuous_outputs_side_by_side():
    b = GraphBuilder()
    x = b.data()
    s = b.node("split", "Split", x, outputs=3, continuous_output=True)
    r = b.node("r", "Sum", (s, 0), (s, 1), (s, 2))
    b.output(r)
    plan = assign_memory(b.graph)
    check_no_overlap(plan)
    assert [offset(plan, f"split:{i}") - offset(plan, "split:0") for i in range(3)] == \
        [0, BLOCK, 2 * BLOCK]
