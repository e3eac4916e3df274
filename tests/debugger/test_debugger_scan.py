"""The debugger on a Scan with a static length: stepped SQE by SQE, the sunk Loop ScanPass made
of it jumps back through its label once per step and writes each step's rows with ScatterND;
the outputs are onnxruntime's."""
from __future__ import annotations

import sys

import numpy as np
import onnx

from debugger_testing import ROOT, debugger
from ge_core.executor import random_feeds
from workbench.debugger.outcomes import Finished, Stopped

sys.path.insert(0, str(ROOT / "tests" / "runtime"))
from control_flow_testing import onnxruntime_outputs, reversed_scan_model  # noqa: E402


def test_stepping_sqes_through_a_sunk_scan(tmp_path):
    proto = reversed_scan_model(seq=3)
    onnx.save(proto, tmp_path / "scan.onnx")
    d = debugger(str(tmp_path / "scan.onnx"))
    try:
        retired = []
        while isinstance((out := d.step("sqe"))[-1], Stopped):
            retired.append(out[-1].where.rsplit(" ", 1)[1].split("#")[0])
        assert isinstance(out[-1], Finished)
        loop = retired[retired.index("LabelSet(L0)"):]
        assert loop.count("LabelSwitchByIndex(L2,L1)") == 4   # three steps, then out
        assert loop.count("LabelGoto(L0)") == 3 and loop.count("ScatterND") == 6
        feeds = random_feeds(d.run.state.graph, 0)
        want = onnxruntime_outputs(proto, feeds)
        for name, value in want.items():
            np.testing.assert_allclose(d.run.state.outputs[name], value, rtol=1e-5, atol=1e-6)
    finally:
        d.close()
