"""Acceptance on the light models: no live overlap, GE's plan the smaller of its two, and our
offset assigners (not GE) within 5% of the lower bound; every assigner stays safe on a
hand-made two-stream split."""
import pytest

from ge_core.compiler.memory import ASSIGNERS, MemoryOptions, assign_memory, check_no_overlap
from ge_core.graph.attr_names import STREAM_ID
from mem_testing import MODELS, light_graph

CUBE = frozenset({"Conv", "FusedConv", "Gemm", "MatMul"})


@pytest.mark.parametrize("model", MODELS)
def test_light_model_plan_is_safe_and_ours_near_the_lower_bound(model):
    graph = light_graph(model)
    plan = assign_memory(graph)
    check_no_overlap(plan)
    assert plan.feature_map_bytes == min(plan.assigner_totals.values())
    assert set(plan.assigner_totals) == {"binary-block", "max-block"}
    assert plan.lower_bound_bytes <= plan.feature_map_bytes <= plan.no_reuse_bytes
    ours = assign_memory(graph, MemoryOptions(offset_assigners=True))
    check_no_overlap(ours)
    assert ours.feature_map_bytes <= 1.05 * ours.lower_bound_bytes, ours.assigner_totals


@pytest.mark.parametrize("model", ["resnet50", "inception_v1", "shufflenet"])
def test_every_assigner_is_safe_on_two_streams(model):
    """Cube ops on stream 0, the rest on stream 1, GE-local ops on none."""
    graph = light_graph(model)
    for node in graph:
        local = node.op_desc.get_attr("engine") == "DNN_VM_GE_LOCAL" or node.type == "Const"
        node.op_desc.set_attr(STREAM_ID, -1 if local else 0 if node.type in CUBE else 1)
    for name in ASSIGNERS:
        plan = assign_memory(graph, MemoryOptions(assigners=(name,)))
        check_no_overlap(plan)
        assert plan.feature_map_bytes >= plan.lower_bound_bytes, name
