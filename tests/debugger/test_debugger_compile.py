"""The engine on ONNX targets: stepping GE's stages, passes and node visits, breakpoints,
watches and the views of the parked compiler, with no terminal."""
from pathlib import Path

import numpy as np
import pytest

from debugger_testing import TINY, debugger, finished, stopped
from ge_core.executor import HostExecutor, random_feeds
from ge_core.parser import parse_onnx
from workbench.debugger.breakpoints import BreakpointError
from workbench.debugger.outcomes import Error, Finished, Printed, Stopped, TableOutcome
from workbench.debugger.views import graph_views

STAGES = ["Prepare", "OptimizeOriginalGraph", "EnginePlacer", "Partition", "OptimizeSubgraph",
          "MergeSubgraph", "OptimizeStage2",  # compile, then build:
          "AssignLogicalStreams", "AssignMemory", "InsertSyncNodesByLogicStream", "GenTask",
          "SplitStreamAndRefreshTaskDef",
          # load (DavinciModel::Init):
          "InitModelMem", "InitIoNodes", "TransAllVarData", "InitNodes", "DoTaskSink"]


@pytest.fixture
def tiny():
    d = debugger(TINY)
    yield d
    d.close()


def test_break_pass_constant_folding_on_resnet50_light():
    d = debugger("light:resnet50")
    try:
        d.add_breakpoint(["pass", "ConstantFoldingPass"])
        s = stopped(d.cont())
        assert s.event.startswith("NodeVisited pass_name=ConstantFoldingPass graph=resnet50")
        assert s.where.startswith("compile > Prepare > InferShapeForPreprocess > "
                                  "ConstantFoldingPass > %")
        assert s.reasons[0].text == "breakpoint 1 (pass ConstantFoldingPass), hit 1"
    finally:
        d.close()


def test_step_stage_walks_ges_stages_in_order(tiny):
    seen = []
    while isinstance((out := tiny.step("stage"))[-1], Stopped):
        seen.append(out[-1].where.split(" > ")[1])
    assert seen == STAGES and isinstance(out[-1], Finished)


def test_step_pass_includes_node_passes_and_next_skips_them(tiny):
    tiny.add_breakpoint(["pass", "OptimizeStage1_2"])
    stopped(tiny.cont())
    inner = [stopped(tiny.step("pass")).where.split(" > ")[-2] for _ in range(3)]
    assert inner == ["DimensionAdjustPass", "ReshapeRemovePass", "CastRemovePass"]
    s = stopped(tiny.next())
    assert s.event.startswith("PassBegin") and "ReshapeRecoveryPass" in s.event


def test_step_node_and_next_node_and_finish(tiny):
    tiny.add_breakpoint(["pass", "OptimizeStage1_2"])
    stopped(tiny.cont())
    first = stopped(tiny.step("node"))
    assert first.where.endswith("DimensionAdjustPass > %input (Data)")
    # step: every node pass's visit; next: the next node
    assert stopped(tiny.step()).where.endswith("ReshapeRemovePass > %input (Data)")
    assert stopped(tiny.next()).where.endswith("%conv1.w (Const)")
    end = stopped(tiny.finish())
    assert end.event.startswith("PassEnd") and "OptimizeStage1_2" in end.event
    assert end.reasons[0].text == "finish: end of pass OptimizeStage1_2"
    assert stopped(tiny.finish()).event.startswith("StageEnd stage=OptimizeOriginalGraph")


def test_condition_on_event_fields(tiny):
    tiny.add_breakpoint(["node", "type=Conv", "if", "node == 'right_conv' and tick > 100"])
    s = stopped(tiny.cont())
    assert "node=right_conv" in s.event and s.tick > 100


def test_watch_attr_fires_in_engine_placer_with_old_and_new(tiny):
    w = tiny.add_watch(["node", "conv1", "attr", "engine"])
    assert w.value == "<no node conv1>"
    # the node's appearing at the parse's end, the attribute still unset, is no stop
    s = stopped(tiny.cont())
    (reason,) = s.reasons
    assert (reason.old, reason.new) == ("<unset>", "'AIcoreEngine'")
    assert s.where == "compile > EnginePlacer" and s.event.startswith("AttrSet node=conv1")


def test_watch_anchors_sees_identity_removal(tiny):
    tiny.add_breakpoint(["pass", "OptimizeStage1_2"])
    stopped(tiny.cont())
    tiny.add_watch(["node", "residual_add", "anchors"])
    s = stopped(tiny.cont())
    assert "IdentityPass" in s.where
    assert "%right_identity:0" in s.reasons[0].old and "%right_identity" not in s.reasons[0].new


def test_diff_passes_and_print_node(tiny):
    tiny.add_breakpoint(["pass", "OptimizeStage1_2"])
    stopped(tiny.cont())
    stopped(tiny.finish())
    diff = graph_views.diff(tiny)
    assert isinstance(diff, Printed) and diff.style == "diff"
    lines = diff.text.splitlines()
    assert lines[0] == "--- tiny_cnn before OptimizeStage1_2"
    assert "-  %right_identity : Identity(%right_conv:0) -> f32[1,8,8,8] => " \
           "[%residual_add:1]" in lines
    assert not any(line.startswith(" ") for line in lines)   # unchanged nodes hidden
    table = graph_views.passes(tiny.state)
    assert isinstance(table, TableOutcome)
    assert [r[2] for r in table.rows][-1] == "OptimizeStage1_2"
    assert table.rows[-1][4] == "yes" and table.rows[0][4] == "-"
    node = graph_views.print_node(tiny.state, "residual_add")
    assert node.text == ("tiny_cnn: %residual_add : Add(%left_relu:0, %right_conv:0) -> "
                         "f32[1,8,8,8] => [%gap:0]")


def test_unknown_names_are_one_line_errors(tiny):
    with pytest.raises(BreakpointError, match="no pass named 'ConstantFoldPass' .did you mean "
                                              "ConstantFoldingPass"):
        tiny.add_breakpoint(["pass", "ConstantFoldPass"])
    stopped(tiny.step("stage"))
    err = graph_views.print_node(tiny.state, "conv")
    assert isinstance(err, Error) and "no node 'conv'" in err.message and "conv1" in err.message


@pytest.mark.parametrize("model", ["resnet50", "shufflenet", "inception_v1"])
def test_every_pass_a_compile_runs_takes_a_breakpoint(model):
    # passes that join a list only for a graph that has their ops (ConcatNotaskPass,
    # ConvEltwiseReluFusionPass) included
    from ge_core.compiler import CompileOptions, compile_graph
    from workbench.conformance.suites import DATA_DIR
    from workbench.debugger.pass_names import known_pass_names
    light = Path(DATA_DIR) / "light" / f"light_{model}.onnx"
    result = compile_graph(parse_onnx(light), CompileOptions(dump=None))
    assert {r.name for r in result.passes} - set(known_pass_names()) == set()


def test_print_tensor_after_execute_matches_the_host_executor(tiny):
    end = finished(tiny.cont())
    assert end.summary[0].startswith("output prob: f32[1,10] min ")
    printed = graph_views.graph_tensor(tiny.state, "prob")
    assert printed.text.startswith("tensor softmax:0: f32[1,10] (device memory at 0x")
    assert printed.text.endswith("host reference: max abs difference 0")
    graph = tiny.state.graph
    expected = HostExecutor(graph).run(random_feeds(graph))["prob"]
    np.testing.assert_array_equal(tiny.state.executor.values["softmax:0"], expected)
    reference = HostExecutor(parse_onnx(tiny.target.path))
    np.testing.assert_allclose(expected, reference.run(random_feeds(graph))["prob"], rtol=1e-5)


def test_run_to_a_place_and_to_a_tick(tiny):
    s = stopped(tiny.run_to(["pass", "PrunePass"]))
    assert s.reasons[0].text == "run-to pass PrunePass" and "PrunePass" in s.where
    t = stopped(tiny.run_to_tick(s.tick + 5))
    assert t.tick == s.tick + 5
    assert isinstance(tiny.run_to_tick(3)[0], Error)


def test_an_unknown_stepping_unit_and_finishing_twice(tiny):
    assert isinstance(tiny.step("frame")[0], Error)
    finished(tiny.cont())
    (err,) = tiny.cont()
    assert isinstance(err, Error) and "finished" in err.message
