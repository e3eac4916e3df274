"""The debugger on a Scan with a static length: stepped SQE by SQE, the sunk Loop ScanPass made
of it jumps back through its label once per step and writes each step's rows with ScatterND;
the outputs are onnxruntime's. A Scan-8 steps through two label programs, one inside the other.
`break pass ScanPass` stops where the rewrite runs, and lesson 28's model (a Scan over a symbolic
batch) gives onnxruntime's outputs both hybrid and, once `set input-shape` fixes the batch, sunk."""
from __future__ import annotations

import sys

import numpy as np
import onnx

from debugger_testing import ROOT, debugger, finished, stopped
from ge_core.executor import random_feeds
from workbench.debugger.outcomes import Finished, Stopped

sys.path.insert(0, str(ROOT / "tests" / "runtime"))
from control_flow_testing import (onnxruntime_outputs, reversed_scan_model,  # noqa: E402
                                  scan_8_model)


def _retired_sqes(d) -> list[str]:
    """Step SQE by SQE to the end: each retired SQE's task."""
    retired = []
    while isinstance((out := d.step("sqe"))[-1], Stopped):
        retired.append(out[-1].where.rsplit(" ", 1)[1].split("#")[0])
    assert isinstance(out[-1], Finished)
    return retired


def _assert_onnxruntimes_outputs(d, proto) -> None:
    want = onnxruntime_outputs(proto, random_feeds(d.run.state.graph, 0))
    for name, value in want.items():
        np.testing.assert_allclose(d.run.state.outputs[name], value, rtol=1e-5, atol=1e-6)


def test_stepping_sqes_through_a_sunk_scan(tmp_path):
    proto = reversed_scan_model(seq=3)
    onnx.save(proto, tmp_path / "scan.onnx")
    d = debugger(str(tmp_path / "scan.onnx"))
    try:
        retired = _retired_sqes(d)
        loop = retired[retired.index("LabelSet(L0)"):]
        assert loop.count("LabelSwitchByIndex(L2,L1)") == 4   # three steps, then out
        assert loop.count("LabelGoto(L0)") == 3 and loop.count("ScatterND") == 6
        _assert_onnxruntimes_outputs(d, proto)
    finally:
        d.close()


def test_stepping_sqes_through_a_sunk_scan_8_runs_the_steps_loop_once_per_batch_entry(tmp_path):
    proto = scan_8_model(batch=2, seq=3)
    onnx.save(proto, tmp_path / "scan8.onnx")
    d = debugger(str(tmp_path / "scan8.onnx"))
    try:
        retired = _retired_sqes(d)
        # the entries' Loop is labelled L3-L5 around the steps' Loop's L0-L2 in its body
        assert retired.count("LabelSwitchByIndex(L5,L4)") == 3   # two entries, then out
        assert retired.count("LabelGoto(L3)") == 2
        assert retired.count("LabelSwitchByIndex(L2,L1)") == 2 * 4   # per entry: 3 steps, out
        assert retired.count("LabelGoto(L0)") == 2 * 3
        # rows: two scan outputs a step, then an entry's two states and two scan outputs
        assert retired.count("ScatterND") == 2 * 3 * 2 + 2 * 4
        _assert_onnxruntimes_outputs(d, proto)
    finally:
        d.close()


SCAN_IF = ROOT / "sample_models" / "scan_if.onnx"


def test_break_pass_scanpass_stops_in_prepare_where_the_scan_becomes_a_loop():
    d = debugger(str(SCAN_IF))
    try:
        d.add_breakpoint(["pass", "ScanPass"])
        s = stopped(d.cont())
        assert s.where == "compile > Prepare > ScanPass"
        assert [n.type for n in d.run.state.graph.all_nodes()].count("Scan") == 1
        assert "changed=True" in stopped(d.finish()).event
        types = [n.type for n in d.run.state.graph.all_nodes()]
        assert "Scan" not in types and types.count("Loop") == 1
    finally:
        d.close()


def test_the_lessons_scan_and_if_give_onnxruntimes_outputs_hybrid_and_sunk():
    proto = onnx.load(SCAN_IF)
    for settings, kind in (({}, "hybrid"), ({"input_shape": "x:3,4"}, "static")):
        d = debugger(str(SCAN_IF), **settings)
        try:
            finished(d.cont())
            model = d.run.state.model
            assert type(model).__name__ == ("HybridDavinciModel" if kind == "hybrid"
                                            else "DavinciModel"), kind
            _assert_onnxruntimes_outputs(d, proto)
        finally:
            d.close()
