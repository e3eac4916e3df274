"""Two compiler features through `gewb`. Multi-batch gears: compile with ATC's gear options, the
passes in the pass table, om-info's gears and switch task, exec picking the input's gear (numbers
from onnxruntime), the debugger stopping at the gear passes, bad gear options in one line.
Autofuse: its pass in the pass table (--autofuse or GE's AUTOFUSE_FLAGS), the AscBackend kernel
in om-info, `break pass AutoFusePass` in the debugger."""
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto as T, helper, numpy_helper

from workbench.cli import main


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GEWB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("AUTOFUSE_FLAGS", raising=False)


def _save(path, nodes, batch):
    """A model of ``nodes`` over x:[batch,4] and the weight w, giving y:[batch,4]."""
    w = numpy_helper.from_array(np.array([1, -2, 3, -4], np.float32), "w")
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, [batch, 4])],
                              [helper.make_tensor_value_info("y", T.FLOAT, [batch, 4])], [w])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


@pytest.fixture
def model(tmp_path):
    """y = relu(x) * w, x:[N,4]."""
    return _save(tmp_path / "gears.onnx", [helper.make_node("Relu", ["x"], ["r"]),
                                           helper.make_node("Mul", ["r", "w"], ["y"])], "N")


@pytest.fixture
def chain(tmp_path):
    """y = tanh(x * w) + x, x:[2,4]."""
    return _save(tmp_path / "chain.onnx", [helper.make_node("Mul", ["x", "w"], ["m"]),
                                           helper.make_node("Tanh", ["m"], ["t"]),
                                           helper.make_node("Add", ["t", "x"], ["y"])], 2)


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("route", [[], ["--switchn"]], ids=["labels", "switchn"])
def test_compile_then_exec_picks_the_gear_of_the_input(capsys, tmp_path, model, route):
    om = tmp_path / "gears.om"
    code, out, _ = run(capsys, "compile", model, "-o", om, "--dynamic-batch-size", "1,2,4", *route)
    assert code == 0
    _, info, _ = run(capsys, "om-info", om)
    assert "  gears: 1; 2; 4\n" in info
    switch = [line for line in info.splitlines() if "STREAM_SWITCH_N" in line]
    if route:
        assert switch == ["     0  STREAM_SWITCH_N  ascend_mbatch_shape_data_StreamSwitchN "
                          "(StreamSwitchN)  true_stream_id=[0, 1, 2] target_value=[[1], [2], [4]]"]
    else:
        assert switch == [] and "ascend_mbatch_shape_mapindex (MapIndex)" in info
    x = np.array([[-1, 2, -3, 4], [5, -6, 7, -8]], np.float32)
    np.save(tmp_path / "x.npy", x)
    code, out, _ = run(capsys, "exec", om, "--input", f"x={tmp_path / 'x.npy'}",
                       "--output", tmp_path / "y.npz")
    assert code == 0 and "  y: f32[2,4]" in out
    expected = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"]) \
        .run(None, {"x": x})[0]
    np.testing.assert_array_equal(np.load(tmp_path / "y.npz")["y"], expected)


def test_passes_lists_the_gear_passes(capsys, model):
    code, out, _ = run(capsys, "passes", model, "--dynamic-batch-size", "1,2")
    assert code == 0
    lines = [line.split() for line in out.splitlines()]
    assert ["Prepare", "MultiBatchClonePass"] in [row[1:3] for row in lines if len(row) > 2]
    assert [row[1:3] for row in lines if len(row) > 2 and row[2] == "MultiBatchPass"] == \
        [["OptimizeOriginalGraph", "MultiBatchPass"], ["OptimizeStage2", "MultiBatchPass"]]


def test_the_debugger_stops_at_the_clone_pass(capsys, tmp_path, model):
    script = tmp_path / "gears.gwb"
    script.write_text(f"target {model}\nset dynamic-batch-size 1,2\n"
                      "break pass MultiBatchClonePass\ncontinue\nfinish\npasses\n")
    code, out, _ = run(capsys, "run", script)
    assert code == 0
    assert "event: PassBegin stage=Prepare pass_name=MultiBatchClonePass graph=g" in out
    assert "1  Prepare  MultiBatchClonePass  g      yes" in out


@pytest.mark.parametrize("args, message", [
    (["--dynamic-batch-size", "4"], "--dynamic_batch_size gives 1 gear(s); at least 2"),
    (["--dynamic-batch-size", "1,2", "--input-shape", "x:1,4"], "needs an input with a -1 dim"),
    (["--dynamic-dims", "1;2", "--input-shape", "q:-1,4"], "--input_shape names q"),
])
def test_bad_gear_options_are_one_line(capsys, model, args, message):
    code, out, err = run(capsys, "compile", model, *args)
    assert code != 0 and message in err and len(err.strip().splitlines()) == 1


def test_exec_of_a_shape_in_no_gear_is_one_line(capsys, tmp_path, model):
    np.save(tmp_path / "x3.npy", np.zeros((3, 4), np.float32))
    code, _, err = run(capsys, "exec", model, "--dynamic-batch-size", "1,2",
                       "--input", f"x={tmp_path / 'x3.npy'}")
    assert code != 0 and "x [3, 4] are in no gear" in err
    assert len(err.strip().splitlines()) == 1


def _autofuse_rows(out):
    return [line.split() for line in out.splitlines() if "AutoFusePass" in line]


def test_passes_shows_autofuse_only_when_enabled(capsys, chain, monkeypatch):
    _, out, _ = run(capsys, "passes", chain)
    assert _autofuse_rows(out) == []
    _, out, _ = run(capsys, "passes", chain, "--autofuse")
    rows = _autofuse_rows(out)
    assert len(rows) == 1 and rows[0][1:5] == ["OptimizeOriginalGraph", "AutoFusePass", "g", "yes"]
    assert "AscBackend+1" in rows[0]
    monkeypatch.setenv("AUTOFUSE_FLAGS", "--enable_autofuse=true")
    _, out, _ = run(capsys, "passes", chain)
    assert len(_autofuse_rows(out)) == 1


def test_om_info_shows_the_fused_kernel(capsys, tmp_path, chain):
    om = tmp_path / "chain.om"
    assert run(capsys, "compile", chain, "-o", om, "--autofuse")[0] == 0
    _, info, _ = run(capsys, "om-info", om)
    assert "  kernels: AscBackend\n" in info
    assert "KERNEL        autofuse_0_Mul_Tanh_Add (AscBackend)  block_dim=1" in info


def test_the_debugger_breaks_on_the_autofuse_pass(capsys, tmp_path, chain):
    script = tmp_path / "fuse.gwb"
    script.write_text(f"target {chain}\nset autofuse on\nbreak pass AutoFusePass\ncontinue\n"
                      "finish\ndiff\n")
    code, out, _ = run(capsys, "run", script)
    assert code == 0
    assert "event: PassBegin stage=OptimizeOriginalGraph pass_name=AutoFusePass graph=g" in out
    assert "+  %autofuse_0_Mul_Tanh_Add : AscBackend(%x:0, %w:0)" in out
