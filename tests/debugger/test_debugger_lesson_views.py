"""What the lessons look at beyond the graph and the device: the GEPass walk in progress (`info
gepass`), the built model as its OM (`info om`), GE's ModelManager (`info ge-models`), model
breakpoints, the build's passes as breakpoints, and the stream settings a lesson changes."""
import pytest

from debugger_testing import debugger, finished, stopped
from workbench.debugger.breakpoints import BreakpointError
from workbench.debugger.outcomes import Printed, TableOutcome
from workbench.debugger.views import gepass_view, model_views

FOLD = "sample_models/fold_and_infer.onnx"
CHAIN = "sample_models/long_chain.onnx"
BRANCHES = "sample_models/parallel_branches.onnx"
TINY = "sample_models/tiny_cnn.onnx"


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


def test_info_gepass_shows_infershape_rounds_and_the_bound():
    d = debugger(FOLD)
    try:
        d.add_breakpoint(["node", "shape_of_r"])
        stopped(d.cont())   # round 1: the Reshape's output is unknown, Shape cannot fold
        first = _gepass(d)
        stopped(d.cont())   # round 2: InferShape knows it now
        second = _gepass(d)
    finally:
        d.close()
    assert "InferShapeAndFoldPass" in first and "round 1 " in first
    assert "round 2 " in second
    # the 10 x bound is of the graph as the walk found it: 16 nodes, then 13 after round 1
    assert "of at most 160 (10 x 16 nodes)" in first and "(10 x 13 nodes)" in second


def test_info_gepass_shows_an_immediate_re_pass_then_the_walk_takes_it():
    d = debugger(FOLD)
    try:
        d.add_breakpoint(["pass", "OriginalGraphNodePasses"])
        stopped(d.cont())
        d.delete(1)
        d.add_breakpoint(["node", "unflatten"])
        visit = stopped(d.cont())                 # DimensionAdjustPass on the second Reshape
        assert "pass_name=DimensionAdjustPass" in visit.event
        stopped(d.step("node"))                   # ReshapeRemovePass is next: it collapses
        stopped(d.step("node"))                   # the chain; CastRemovePass is next
        asked = _gepass(d)
        d.delete(2)
        passes = [stopped(d.step("node")).event for _ in range(3)]
    finally:
        d.close()
    assert "ReshapeRemovePass asked: immediate re-pass %unflatten" in asked
    assert "deleted %flatten" in asked
    # after the node's last pass, the walk takes the request: unflatten is visited again first
    assert "node=unflatten" in passes[-1] and "pass_name=DimensionAdjustPass" in passes[-1]


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
        assert f"stream {stream}: {len(defs)} tasks" in text
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


@pytest.mark.parametrize("settings, streams", [
    ({}, 2), ({"max_task_count": 40}, 3), ({"single_stream": True}, 1)])
def test_stream_settings_reach_the_build(settings, streams):
    d = debugger(CHAIN, **settings)
    try:
        finished(d.cont())
        assert d.state.ge_model.stream_num == streams
    finally:
        d.close()
