"""Acceptance items that need GE's build, loader and device execution (landing in parallel:
ge_core/compiler/model_builder.py, ge_core/runtime/). Written against the phase names of the
ONNX program; each is skipped until its module imports and its phase is in the table."""
import importlib.util

import pytest

from debugger_testing import TINY, debugger, finished, stopped
from workbench.debugger import graph_views
from workbench.debugger.onnx_program import ONNX_PHASES
from workbench.debugger.outcomes import Stopped


def _ready(module: str, phase: str) -> bool:
    try:
        found = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        found = False
    return found and phase in [p.name for p in ONNX_PHASES]


BUILD = pytest.mark.skipif(not _ready("ge_core.compiler.model_builder", "build"),
                           reason="needs GE's build (ge_core.compiler.model_builder) as the "
                                  "ONNX program's build phase")
RUNTIME = pytest.mark.skipif(not _ready("ge_core.runtime", "load"),
                             reason="needs GE's loader and device execution (ge_core.runtime) "
                                    "as the ONNX program's load and execute phases")


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


@RUNTIME
def test_break_distribute_event_record_stops_inside_do_task_sink():
    d = debugger("light:resnet50")
    try:
        d.add_breakpoint(["distribute", "type=event_record"])
        s = stopped(d.cont())
        assert s.where.startswith("load") and "DoTaskSink" in s.where
        assert stopped(d.step("task")).where.startswith("load")
    finally:
        d.close()


@RUNTIME
def test_print_tensor_reads_device_memory_after_execute():
    d = debugger(TINY)
    try:
        finished(d.cont())
        printed = graph_views.graph_tensor(d.state, "prob")
        assert "device" in printed.text.splitlines()[0]
    finally:
        d.close()


@RUNTIME
def test_the_onnx_program_is_ges_whole_flow():
    assert [p.name for p in ONNX_PHASES] == ["parse", "compile", "build", "load", "execute"]
