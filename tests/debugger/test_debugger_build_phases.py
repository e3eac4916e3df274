"""Acceptance items on GE's build, loader and device execution: the ONNX program's build, load
and execute phases."""
from debugger_testing import TINY, debugger, finished, stopped
from workbench.debugger.outcomes import Stopped
from workbench.debugger.targets.onnx_program import ONNX_PHASES
from workbench.debugger.views import graph_views


def test_watch_stream_id_fires_during_stream_allocation():
    d = debugger(TINY)
    try:
        d.add_watch(["node", "softmax", "attr", "stream_id"])
        while isinstance((out := d.cont())[-1], Stopped) and \
                not out[-1].where.startswith("build"):
            pass
        s = stopped(out)
        (reason,) = s.reasons
        assert reason.old == "<unset>" and reason.new.lstrip("-").isdigit()
        assert s.event.startswith("AttrSet node=softmax key=stream_id")
    finally:
        d.close()


def test_the_models_stream_number_is_an_event_a_step_stops_on():
    """The stream allocator sets the model's stream number on the graph itself as a
    GraphAttrSet, the event after the last logical stream pass ends."""
    d = debugger(TINY)
    try:
        d.add_breakpoint(["pass", "RefreshContinuousStreams"])
        stopped(d.cont())
        stopped(d.finish())
        s = stopped(d.step("event"))
        assert s.event.startswith("GraphAttrSet graph=tiny_cnn key=stream_num old=None new=")
        assert s.where.startswith("build > AssignLogicalStreams")
    finally:
        d.close()


def test_break_distribute_event_record_stops_inside_do_task_sink():
    d = debugger("light:resnet50")
    try:
        d.add_breakpoint(["distribute", "type=event_record"])
        s = stopped(d.cont())
        assert s.where.startswith("load") and "DoTaskSink" in s.where
        assert stopped(d.step("task")).where.startswith("load")
    finally:
        d.close()


def test_print_tensor_reads_device_memory_after_execute():
    d = debugger(TINY)
    try:
        finished(d.cont())
        printed = graph_views.graph_tensor(d.state, "prob")
        assert "device" in printed.text.splitlines()[0]
    finally:
        d.close()


def test_the_onnx_program_is_ges_whole_flow():
    assert [p.name for p in ONNX_PHASES] == ["parse", "compile", "build", "load", "execute"]


def test_an_om_file_loads_and_executes_under_the_debugger(tmp_path):
    from ge_core.atc import atc
    from ge_core.compiler import CompileOptions
    from ge_core.compiler.model_builder import BuildOptions
    from ge_core.parser import parse_onnx
    from debugger_testing import ROOT
    om = tmp_path / "tiny.om"
    atc(parse_onnx(ROOT / TINY), CompileOptions(dump=None), BuildOptions(), out=om)
    d = debugger(str(om))
    try:
        assert [p.name for p in d.target.phases] == ["read", "load", "execute"]
        d.add_breakpoint(["distribute", "type=event_record"])
        assert stopped(d.cont()).where.startswith("load > DoTaskSink")
        end = finished(d.cont())
        assert end.summary[0].startswith("output prob: f32[1,10]")
        assert "device memory at" in graph_views.graph_tensor(d.state, "prob").text
    finally:
        d.close()
