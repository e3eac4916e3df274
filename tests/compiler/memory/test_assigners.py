"""The assigners the hybrid runs, each one's total, the choice, and determinism."""
import pytest

from ge_core.compiler.memory import (ASSIGNERS, MemoryOptions, assign_memory,
                                     check_no_overlap)
from ge_core.compiler.memory.binary_block_mem_assigner import BinaryBlockMemAssigner
from ge_core.compiler.memory.mem_options import shown_assigner
from ge_core.graph import dump_graph
from mem_testing import GraphBuilder, light_graph

BIG = 4096  # shape (1000,): 4000 -> 4032 -> 4096 aligned


def small_takes_big() -> GraphBuilder:
    """big1 -> s1 -> s2, s1 -> big2, t = big2 + s2 (t is returned: zero-copy)."""
    b = GraphBuilder()
    x = b.data()
    big1 = b.node("big1", "Relu", x, shape=(1000,))
    s1 = b.node("s1", "Relu", big1)
    s2 = b.node("s2", "Relu", s1)
    big2 = b.node("big2", "Relu", s1, shape=(1000,))
    b.output(b.node("t", "Add", big2, s2, shape=(1000,)))
    return b


def test_each_assigners_total():
    plan = assign_memory(small_takes_big().graph, MemoryOptions(assigners=tuple(ASSIGNERS)))
    check_no_overlap(plan)
    # Live at big2: s1, s2, big2. BinaryBlock keeps sizes in their own buckets, so s2 opens a
    # small block and big2 takes big1's. MaxBlock (and the "range" variants) let s2 take big1's
    # released block, so big2 must open another big one.
    assert plan.lower_bound_bytes == BIG + 2 * 512
    assert plan.assigner_totals == {
        "binary-block": BIG + 2 * 512,
        "max-block": 2 * BIG + 512,
        "range-binary-block-descending-frfr": 2 * BIG + 512,
        "range-binary-block-ascending-frfr": 2 * BIG + 512,
        "range-binary-block-descending-frlr": 2 * BIG + 512,
        "range-binary-block-ascending-frlr": 2 * BIG + 512,
        "greedy_by_size": BIG + 2 * 512,
        "best_fit_search": BIG + 2 * 512,
    }
    assert plan.assigner == "binary-block"  # ties go to the earliest, as GE's sort keeps them
    assert plan.feature_map_bytes == min(plan.assigner_totals.values())


def test_a_default_build_runs_ges_two_and_the_options_add_the_others():
    graph = small_takes_big().graph
    assert list(assign_memory(graph).assigner_totals) == ["binary-block", "max-block"]
    priority = assign_memory(graph, MemoryOptions(memory_priority=True)).assigner_totals
    assert list(priority) == ["binary-block", "max-block",
                              "range-binary-block-descending-frfr",
                              "range-binary-block-ascending-frfr",
                              "range-binary-block-descending-frlr",
                              "range-binary-block-ascending-frlr"]
    ours = assign_memory(graph, MemoryOptions(offset_assigners=True)).assigner_totals
    assert list(ours) == ["binary-block", "max-block", "greedy_by_size", "best_fit_search"]


def test_ge_options_reach_the_memory_options():
    from ge_core.session.graph_manager import GraphManager
    memory = GraphManager.from_ge_options({
        "ge.exec.memoryOptimizationPolicy": "MemoryPriority",
        "gewb.offsetAssigners": "1"}).build_options.memory
    assert memory.memory_priority and memory.offset_assigners
    plain = GraphManager.from_ge_options({}).build_options.memory
    assert not plain.memory_priority and not plain.offset_assigners


def test_ours_are_marked_not_ge():
    assert shown_assigner("best_fit_search") == "best_fit_search (not GE)"
    assert shown_assigner("binary-block") == "binary-block"


def test_binary_block_ranges_double_and_merge_thin_ones():
    ranges = BinaryBlockMemAssigner().memory_ranges
    assert ranges([]) == [512]
    assert ranges([512, 512, 2032, 2032]) == [512, 2032]
    # Ranges end at 1K, 2K, 4K. With 5 sizes each range's share is 5 // 3 = 1: all stay.
    assert ranges([512, 512, 1536, 4032, 4032]) == [512, 1536, 4032]
    # With 7 the share is 2: 1536 alone is too thin and joins the next range.
    assert ranges([512] * 3 + [1536] + [4032] * 3) == [512, 4032]
    assert ranges([96, 160]) == [160]


def test_the_hybrid_runs_only_what_it_is_told_and_names_the_rest():
    plan = assign_memory(small_takes_big().graph, MemoryOptions(assigners=("max-block",)))
    assert plan.assigner_totals == {"max-block": 2 * BIG + 512}
    with pytest.raises(ValueError, match="unknown memory assigner.*binary-block"):
        assign_memory(small_takes_big().graph, MemoryOptions(assigners=("first_fit",)))


def test_a_plan_is_deterministic():
    def run():
        graph = light_graph("squeezenet")
        plan = assign_memory(graph)
        return plan.rows, plan.assigner_totals, dump_graph(graph)
    assert run() == run()


def test_every_assigner_is_registered():
    assert len(ASSIGNERS) == 8
