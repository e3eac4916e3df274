"""A run that does not end is ended by its timeout (GE's ge.exec.graphExecTimeout, in emulated
device time; the host executor counts nodes), with one line, in `gewb exec`, `gewb graph --run`
and the debugger's `continue` alike (issue 15: a Loop with no exit or a 1e12 trip count)."""
from __future__ import annotations

from pathlib import Path

import pytest

from onnx_cases import counting_loop, save
from workbench.cli import main
from workbench.commands.session import DebugSession

LOOPS = {"no exit": None, "1e12 trips": 10**12}


@pytest.fixture(params=list(LOOPS))
def endless(request, tmp_path) -> str:
    return save(counting_loop(LOOPS[request.param]), tmp_path, "loop")


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    return err


def test_exec_ends_the_model_at_its_timeout(endless, capsys):
    assert main(["exec", endless, "--exec-timeout", "5"]) == 2
    assert "did not finish within 5 ms of device time and was aborted" in _one_line_error(capsys)


def test_graph_run_ends_at_its_timeout(endless, capsys):
    assert main(["graph", endless, "--run", "--exec-timeout", "5"]) == 2
    err = _one_line_error(capsys)
    assert "the run did not finish within its timeout of 5 ms (ge.exec.graphExecTimeout" in err
    assert "in Loop Loop_0 at iteration " in err


def test_a_loop_that_ends_still_runs(tmp_path, capsys):
    """Five trips: v + 5 on the device and on the host (the bound is not hit)."""
    model = save(counting_loop(5), tmp_path, "five")
    assert main(["exec", model, "--exec-timeout", "5"]) == 0
    device = capsys.readouterr().out
    assert main(["graph", model, "--run"]) == 0
    host = capsys.readouterr().out
    line = next(ln for ln in device.splitlines() if ln.startswith("  vo: "))
    assert line in host


def test_the_debugger_continue_ends_with_the_same_message(endless):
    session = DebugSession(base_dir=Path(endless).parent)
    for line in (f"target {endless}", "set exec-timeout 5"):
        session.execute(line)
    (stop,) = session.execute("continue")   # the timeout stops the run (by default) ...
    assert stop.reasons[0].text == "fault timeout"
    text = "\n".join(str(o) for o in session.execute("continue"))   # ... and then it ends
    assert "did not finish within 5 ms of device time and was aborted" in text
    session.close()


@pytest.mark.parametrize("value", ["0", "-2", "soon"])
def test_a_bad_timeout_is_refused(value, capsys):
    with pytest.raises(SystemExit):
        main(["exec", "x.onnx", "--exec-timeout", value])
    assert "--exec-timeout" in capsys.readouterr().err
