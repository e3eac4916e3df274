"""The quadratic offset assigners run by default only on graphs of up to
OFFSET_ASSIGNER_MAX_ITEMS tensors: a bigger build keeps GE's block assigners (a 200k-node chain
ran for minutes otherwise), and naming them in the options still runs them."""
from ge_core.compiler.memory import MemoryOptions, assign_memory, check_no_overlap
from ge_core.compiler.memory import hybrid_mem_assigner
from mem_testing import chain

OFFSET = {"greedy_by_size", "best_fit_search"}


def test_a_graph_past_the_bound_keeps_the_block_assigners(monkeypatch):
    monkeypatch.setattr(hybrid_mem_assigner, "OFFSET_ASSIGNER_MAX_ITEMS", 10)
    plan = assign_memory(chain(40).graph)
    check_no_overlap(plan)
    assert not OFFSET & set(plan.assigner_totals) and "binary_block" in plan.assigner_totals
    assert plan.feature_map_bytes == plan.lower_bound_bytes   # a chain needs two blocks


def test_within_the_bound_or_when_named_they_run(monkeypatch):
    assert OFFSET <= set(assign_memory(chain(40).graph).assigner_totals)
    monkeypatch.setattr(hybrid_mem_assigner, "OFFSET_ASSIGNER_MAX_ITEMS", 10)
    named = assign_memory(chain(40).graph, MemoryOptions(assigners=("greedy_by_size",)))
    assert set(named.assigner_totals) == {"greedy_by_size"}
