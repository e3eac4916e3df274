"""An If whose untaken branch cannot be shape-inferred for the inputs at hand (it squeezes a dim
that is not 1): the model compiles; the branch's shapes are unknown (a dynamic run infers them
when it is taken) and, its input shapes being all known, it always fails, so the If's output is
the then branch's and a static build makes the branch a FailedBranch. The then branch gives
onnxruntime's outputs on sink, v2, hybrid and the debugger's continue, and the else branch's
error is one line, reported only when it is taken."""
from __future__ import annotations

import sys
from dataclasses import replace

import numpy as np
import onnx
import pytest

from control_flow_testing import onnxruntime_outputs, squeezing_if_model
from ge_core.graph import GeShape
from ge_core.graph.attr_names import INFER_ALWAYS_FAILS, INFER_DEFERRED
from ge_core.ops import infer_graph
from ge_core.parser import parse_onnx
from workbench.cli import main

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "debugger"))
from debugger_testing import debugger, finished, stopped  # noqa: E402

ERROR = "node Squeeze_1 (Squeeze): cannot squeeze axes [2] of [1, 128, 2]"


@pytest.fixture
def case(tmp_path):
    """The model, --input args for cond true and false, onnxruntime's z for cond true."""
    proto = squeezing_if_model()
    onnx.save(proto, tmp_path / "sq_if.onnx")
    x = np.random.default_rng(0).standard_normal((1, 128, 2)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    args = {}
    for cond in (True, False):
        np.save(tmp_path / f"c{int(cond)}.npy", np.array(cond))
        args[cond] = ["--input", f"x={tmp_path / 'x.npy'}",
                      "--input", f"c={tmp_path / f'c{int(cond)}.npy'}"]
    want = onnxruntime_outputs(proto, {"x": x, "c": np.array(True)})["z"]
    return tmp_path, args, want


def test_the_failing_branch_gets_unknown_shapes_and_says_why():
    graph = parse_onnx(squeezing_if_model())
    x = graph.find_node("x").op_desc
    x.update_output_desc(0, replace(x.output_descs[0], shape=GeShape((1, 128, 2))))
    infer_graph(graph)
    if_node = graph.find_node("if0")
    then_g, else_g = (graph.subgraph(n) for n in if_node.op_desc.subgraph_names)
    assert INFER_DEFERRED not in then_g.attrs and ERROR in else_g.attrs[INFER_DEFERRED]
    assert else_g.attrs[INFER_ALWAYS_FAILS]   # its Squeeze's input shape was known
    assert str(else_g.find_node("Squeeze_1").op_desc.output_descs[0].shape) == "[*]"
    assert str(if_node.op_desc.output_descs[0].shape) == "[1,128,2]"   # then's: else gives none


@pytest.mark.parametrize("mode", ["auto", "sink", "v2", "hybrid"])
def test_the_taken_branch_runs_and_the_untaken_ones_error_comes_only_when_taken(
        case, capsys, mode):
    tmp_path, args, want = case
    out = tmp_path / f"{mode}.npz"
    assert main(["exec", str(tmp_path / "sq_if.onnx"), "--mode", mode, *args[True],
                 "--output", str(out)]) == 0
    np.testing.assert_allclose(np.load(out)["z"], want, rtol=1e-6)
    capsys.readouterr()
    assert main(["exec", str(tmp_path / "sq_if.onnx"), "--mode", mode, *args[False]]) == 2
    err = capsys.readouterr().err
    assert ERROR in err and len(err.strip().splitlines()) == 1


def test_auto_sinks_it_and_the_failed_branch_is_one_task(case, capsys):
    tmp_path, args, _ = case
    assert main(["exec", str(tmp_path / "sq_if.onnx"), *args[False]]) == 2
    err = capsys.readouterr().err
    assert "FailedBranch (task " in err and f"branch if0_else_branch taken: {ERROR}" in err


@pytest.mark.parametrize("cond", [True, False])
def test_the_debuggers_continue_runs_it_too(case, cond):
    tmp_path, args, want = case
    d = debugger(str(tmp_path / "sq_if.onnx"), input=",".join(args[cond][1::2]))
    try:
        if cond:
            finished(d.cont())
            np.testing.assert_allclose(d.run.state.outputs["z"], want, rtol=1e-6)
        else:   # the sunk model's FailedBranch task faults: the debugger stops there
            stop = stopped(d.cont())
            assert stop.reasons[0].kind == "fault" and ERROR in stop.event
    finally:
        d.close()
