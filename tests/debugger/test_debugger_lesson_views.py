"""What the lessons look at beyond the graph and the device: the GEPass walk in progress (`info
gepass`), the built model as its OM (`info om`), GE's ModelManager (`info ge-models`), model
breakpoints, the build's passes as breakpoints, and the stream settings a lesson changes."""
import pytest

from debugger_testing import debugger, finished, stopped
from workbench.debugger.breakpoints import BreakpointError
from workbench.debugger.outcomes import Printed, TableOutcome
from workbench.debugger.views import gepass_view, graph_views, model_views

FOLD = "sample_models/fold_and_infer.onnx"
CHAIN = "sample_models/long_chain.onnx"
BRANCHES = "sample_models/parallel_branches.onnx"
TINY = "sample_models/tiny_cnn.onnx"
IMAGE = "sample_models/image_and_features.onnx"


def _gepass(d) -> str:
    out = gepass_view.gepass(d.state)
    assert isinstance(out, Printed)
    return out.text


def test_info_gepass_outside_a_walk_says_so():
    d = debugger(FOLD)
    try:
        d.add_breakpoint(["pass", "ConstantFuseSamePass"])
        stopped(d.cont())
        assert _gepass(d) == gepass_view.NOT_IN_GEPASS
    finally:
        d.close()


def test_info_gepass_shows_prepares_node_passes_and_the_bound():
    d = debugger(FOLD)
    try:
        d.add_breakpoint(["node", "shape_of_r"])
        stopped(d.cont())   # the walk reaches the Shape after its input's fold
        shown = _gepass(d)
    finally:
        d.close()
    assert shown.startswith("GEPass of InferShapeForPreprocess on graph fold_and_infer")
    assert ("node passes: CondRemovePass, InferShapePass, ReplaceWithEmptyConstPass, "
            "DimensionComputePass, ConstantFoldingPass") in shown
    # the 10 x bound is of the graph as the walk found it: 16 nodes
    assert "of at most 160 (10 x 16 nodes)" in shown and "%concat_shape" in shown


def test_info_gepass_marks_the_node_passes_ge_does_not_have():
    d = debugger(FOLD)
    try:
        d.add_breakpoint(["pass", "OptimizeStage1_2"])
        stopped(d.cont())
        stopped(d.step("node"))
        shown = _gepass(d)
    finally:
        d.close()
    assert "IdentityPass, TransposeTransposeFusionPass (not GE)" in shown
    assert "ReshapeRemovePass (not GE)" not in shown


def test_info_gepass_shows_an_immediate_re_pass_then_the_walk_takes_it():
    from types import SimpleNamespace

    from ge_core.passes import GEPass, NodePassGroup
    from ge_core.passes.base_node_pass import BaseNodePass
    from ge_core.parser import parse_onnx

    class AskAgain(BaseNodePass):   # at %add_ones, once: visit %reshape again at once
        name = "AskAgain"

        def run(self, node):
            if node.name == "add_ones" and not getattr(self, "done", False):
                self.done = True
                self.add_immediate_re_pass_node(node.graph.find_node("reshape"))

    class Look(BaseNodePass):
        name = "Look"

        def run(self, node):
            pass

    graph = parse_onnx(FOLD)
    group = NodePassGroup("Test", [AskAgain(), Look()])
    walk = group.ge_pass = GEPass(graph, group.passes)
    state = SimpleNamespace(pipeline=SimpleNamespace(manager=SimpleNamespace(current=group)))
    steps = walk.walk()
    for name, node in steps:
        if node is None:   # a place the walk may be resumed from (as it sets out)
            continue
        if (name, node.name) == ("Look", "add_ones"):
            break
    asked = gepass_view.gepass(state).text
    assert "AskAgain asked: immediate re-pass %reshape" in asked
    # after the node's last pass, the walk takes the request: reshape is visited again first
    assert next(steps)[1].name == "reshape"


def test_info_om_lists_every_task_the_build_made():
    d = debugger(TINY)
    try:
        assert "no model yet" in model_views.om(d.state).text
        d.add_breakpoint(["distribute"])
        stopped(d.cont())
        text = model_views.om(d.state).text
        tasks = d.state.ge_model.tasks_by_stream()
    finally:
        d.close()
    assert text.splitlines()[0].startswith("tiny_cnn.om (as ATC writes it)")
    for stream, defs in tasks.items():
        assert f"stream s{stream}: {len(defs)} task" in text
    assert "TASK_INFO" in text and "END_GRAPH" in text


def test_info_ge_models_fills_once_the_model_is_loaded():
    d = debugger(TINY)
    try:
        d.add_breakpoint(["distribute"])
        stopped(d.cont())                            # inside DoTaskSink: not registered yet
        during = model_views.ge_models(d.run.world)
        d.delete(1)
        d.add_breakpoint(["model", "execute"])
        s = stopped(d.cont())
        after = model_views.ge_models(d.run.world)
    finally:
        d.close()
    assert isinstance(during, Printed) and "empty" in during.text
    assert s.event.startswith("ModelExecuted")
    assert isinstance(after, TableOutcome)
    (row,) = after.rows
    assert row[:3] == ("1", "static", "tiny_cnn")


def test_break_model_finish_then_the_run_ends():
    d = debugger(TINY)
    try:
        d.add_breakpoint(["model", "finish"])
        assert stopped(d.cont()).event.startswith("ModelFinished")
        finished(d.cont())
        with pytest.raises(BreakpointError, match="no model event 'exit'"):
            d.add_breakpoint(["model", "exit"])
    finally:
        d.close()


def test_a_build_pass_is_a_breakpoint_and_its_diff_shows_stream_ids():
    d = debugger(BRANCHES)
    try:
        d.add_breakpoint(["pass", "AssignByDependencyPass"])
        s = stopped(d.cont())
        assert s.where == "build > AssignLogicalStreams > AssignByDependencyPass"
    finally:
        d.close()


def test_the_dvpp_engines_optimizer_is_a_breakpoint_where_it_runs():
    # it joins stage 1 only for a graph with an op asking for DVPP (lesson 07)
    d = debugger(IMAGE)
    try:
        d.add_breakpoint(["pass", "DvppGraphOptimizer"])
        s = stopped(d.cont())
        assert s.where == "compile > OptimizeOriginalGraph > DvppGraphOptimizer"
        s = stopped(d.finish())
        assert "changed=True" in s.event
    finally:
        d.close()


@pytest.mark.parametrize("settings, streams", [
    ({}, 2), ({"max_task_count": 40}, 3), ({"single_stream": True}, 1),
    ({"max_task_count": 40, "auto_split": True}, 2)])   # the device splits: SplitStreams not
def test_stream_settings_reach_the_build(settings, streams):
    d = debugger(CHAIN, **settings)
    try:
        finished(d.cont())
        assert d.state.ge_model.stream_num == streams
    finally:
        d.close()


@pytest.mark.parametrize("offset_assigners", [False, True])
def test_info_memory_plan_shows_the_assigners_tried_and_what_crosses_streams(offset_assigners):
    d = debugger("sample_models/memory_reuse.onnx", offset_assigners=offset_assigners)
    try:
        assert "no memory plan yet" in model_views.memory_plan(d.state).text
        d.add_breakpoint(["distribute"])
        stopped(d.cont())
        plan = model_views.memory_plan(d.state)
        built = d.state.built.memory
    finally:
        d.close()
    assert isinstance(plan, TableOutcome)
    rows = {row[-1]: row for row in plan.rows}
    # conv_a (AI Core stream) and mul_c (Vector stream): GE's blocks stay in their stream's
    # pool; our offset assigners share the offset, since an event orders the two lives
    assert rows["conv_a:0"][4] != rows["mul_c:0"][4]
    assert (rows["conv_a:0"][1] == rows["mul_c:0"][1]) == offset_assigners
    assert f"by {built.assigner}" in plan.title
    assert ("best_fit_search (not GE) 3072" in plan.title) == offset_assigners
    assert all(f" {total}" in plan.title for total in built.assigner_totals.values())


def test_the_pass_table_has_the_build_passes_with_the_events_left_after_each_step():
    d = debugger("sample_models/sync_patterns.onnx", minimise_events=True)
    try:
        d.add_breakpoint(["pass", "GenerateSyncEventNodes"])
        stopped(d.cont())
        table = graph_views.passes(d.state)
    finally:
        d.close()
    events = [row[-1] for row in table.rows
              if row[1] == "InsertSyncNodesByLogicStream" and "events" in row[-1]]
    # inserted 5, OptimizeBySend 4, ByRecv 3, ByStreamActivate 3, transitive reduction 2, refresh 2
    assert events == ["events 5", "events 4", "events 3", "events 3", "events 2", "events 2"]
    assert any(row[2] == "AssignByDependencyPass" for row in table.rows)
    # the transitive reduction is ours: the table marks it, GE's three optimisations it does not
    sync_passes = [row[2] for row in table.rows if row[1] == "InsertSyncNodesByLogicStream"]
    assert "OptimizeByTransitiveReduction (not GE)" in sync_passes
    assert "OptimizeByStreamActivate" in sync_passes


def test_an_if_loop_model_runs_to_the_end_with_the_source_model_as_its_reference():
    d = debugger("sample_models/if_loop.onnx")
    try:
        end = finished(d.cont())
        printed = graph_views.graph_tensor(d.state, "relu")
    finally:
        d.close()
    assert not any("error" in line for line in end.summary), end.summary
    # the Relu after the If, read from device memory beside the parsed model's host reference
    assert "device memory" in printed.text and "max abs difference 0" in printed.text


def test_the_options_set_once_lacked_reach_the_build():
    """notify and no-reuse (and auto-split, above) were gewb compile's only; `set` takes them."""
    from ge_core.graph.attr_names import ATTR_MODEL_NOTIFY_NUM
    built = {}
    for name, settings in (("default", {}), ("no_reuse", {"no_reuse": True}),
                           ("notify", {"notify": True})):
        d = debugger("sample_models/parallel_branches.onnx", **settings)
        try:
            finished(d.cont())
            built[name] = d.state.built, d.state.ge_model
        finally:
            d.close()
    plan, model = built["default"]
    assert built["no_reuse"][0].memory.feature_map_bytes == plan.memory.no_reuse_bytes > \
        plan.memory.feature_map_bytes
    notify_model = built["notify"][1]
    assert model.task_def.event_num > 0 and notify_model.task_def.event_num == 0
    assert int(notify_model.task_def.attr[ATTR_MODEL_NOTIFY_NUM]) == model.task_def.event_num


def test_info_memory_plan_names_the_fixed_feature_map_hccls_buffers_make():
    d = debugger("sample_models/allreduce_step.onnx")
    try:
        d.add_breakpoint(["distribute"])
        stopped(d.cont())
        title = model_views.memory_plan(d.state).title
        fixed = d.state.built.memory.fixed_feature_map_bytes
    finally:
        d.close()
    assert fixed > 0 and f"fixed feature map {fixed} B" in title
