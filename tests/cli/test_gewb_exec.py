"""`gewb exec`: a model run once on the emulated NPU; its outputs summarised, written to an .npz
by output name; the device time; the timeline; one-line errors."""
import json
from pathlib import Path

import numpy as np
import pytest

from ge_core.model_task_type import ModelTaskType
from ge_core.om import save_om
from workbench.cli import main
from v1_testing import TINY, feeds_for, ge_model, host_outputs

ROOT = Path(__file__).resolve().parents[2]


def test_exec_onnx_prints_outputs_and_device_time_and_writes_them(tmp_path, capsys):
    x = feeds_for(seed=4)["input"]
    np.save(tmp_path / "x.npy", x)
    out, trace = tmp_path / "out.npz", tmp_path / "t.json"
    assert main(["exec", TINY, "--input", f"input={tmp_path / 'x.npy'}", "--output", str(out),
                 "--trace", str(trace)]) == 0
    text = capsys.readouterr().out
    assert "tiny_cnn.onnx: sink (v1 DavinciModel): 2 streams, 11 tasks" in text
    assert "  prob: f32[1,10] min " in text and "emulated time: " in text
    saved = np.load(out)
    np.testing.assert_allclose(saved["prob"], host_outputs(TINY, {"input": x})["prob"],
                               rtol=1e-5, atol=1e-6)
    names = {e["name"] for e in json.loads(trace.read_text())["traceEvents"]}
    assert "ModelExecute(m0)" in names and "FusedConv" in names


def test_exec_om_runs_the_file_as_compiled(tmp_path, capsys):
    om = tmp_path / "tiny.om"
    save_om(ge_model(), om)
    assert main(["exec", str(om)]) == 0
    assert "tiny.om: sink (v1 DavinciModel)" in capsys.readouterr().out


@pytest.mark.parametrize("streams, count", [(["--single-stream"], 1),
                                            (["--stream-max-parallel-num", "4"], 6)])
def test_stream_options_choose_single_or_parallel(streams, count, capsys):
    assert main(["exec", TINY, *streams]) == 0
    assert f"{count} stream{'s' * (count != 1)}," in capsys.readouterr().out


def test_race_check_names_each_unordered_pair_and_fails_a_build_that_lost_its_waits(tmp_path,
                                                                                     capsys):
    """An OM whose streams' EVENT_WAITs were dropped runs to the end with wrong numbers and,
    unchecked, exit status 0; --race-check names the tasks that raced and exits 1. GE's own
    build of the same streams, waiting on notifies, has none."""
    m = ge_model(TINY, stream_max_parallel_num=4)
    kept = [t for t in m.task_def.task if t.type != ModelTaskType.EVENT_WAIT]
    assert len(kept) < len(m.task_def.task)
    del m.task_def.task[:]
    m.task_def.task.extend(kept)
    om = tmp_path / "no_waits.om"
    save_om(m, om)
    assert main(["exec", str(om)]) == 0
    assert "fault:" not in capsys.readouterr().out
    assert main(["exec", str(om), "--race-check"]) == 1
    out = capsys.readouterr().out
    assert "  prob: f32[1,10]" in out   # the outputs first, then the faults
    races = [line for line in out.splitlines() if line.startswith("fault: race: ")]
    assert races and all("no event, notify or sync orders them" in line for line in races)
    assert out.index("  prob:") < out.index("fault: race: ")
    assert main(["exec", TINY, "--stream-max-parallel-num", "4", "--notify",
                 "--race-check"]) == 0
    assert "fault:" not in capsys.readouterr().out


@pytest.mark.parametrize("mode, about", [("v2", "v2 (ExecuteGraph"), ("hybrid", "hybrid (")])
def test_other_modes_run_through_their_executors(mode, about, capsys):
    assert main(["exec", TINY, "--mode", mode]) == 0
    out = capsys.readouterr().out
    assert about in out and "prob: f32[1,10]" in out


@pytest.mark.parametrize("args, message", [
    (["missing.onnx"], "no such model: missing.onnx"),
    ([TINY, "--input", "nope=x.npy"], "expected NAME=FILE with NAME one of input"),
    ([TINY, "--input", "input=missing.npy"], "--input input=missing.npy:"),
])
def test_bad_arguments_are_one_line(args, message, capsys):
    assert main(["exec", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("option", [["--single-stream"], ["--input-shape", "input:1,3,8,8"],
                                    ["--no-reuse"]])
def test_build_options_with_an_om_are_refused(option, tmp_path, capsys):
    om = tmp_path / "tiny.om"
    save_om(ge_model(), om)
    assert main(["exec", str(om), *option]) == 2
    assert f"{option[0]} applies to an .onnx model: an OM's options were fixed" in \
        capsys.readouterr().err


def test_the_chip_decides_whether_ge_splits_a_long_stream(capsys):
    """A 910B (the default) has no AutoSplit, so GE's build cuts the 25-task chain at the
    40-task limit into two streams; a 950's runtime grows streams itself, and GE, asking it,
    keeps the chain on one. The outputs are the same."""
    chain = str(ROOT / "sample_models" / "long_chain.onnx")
    outs = {}
    for soc, streams in (("Ascend910B1", 3), ("Ascend950", 2)):
        assert main(["exec", chain, "--max-task-count", "40", "--soc-version", soc]) == 0
        text = capsys.readouterr().out
        assert f"sink (v1 DavinciModel): {streams} streams" in text, soc
        outs[soc] = text.splitlines()[1]
    assert outs["Ascend910B1"] == outs["Ascend950"]
