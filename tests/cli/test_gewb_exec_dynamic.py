"""`gewb exec` on a model as an exporter writes it: a symbolic batch and an If. The inputs given
size the batch (GE's CheckAndUpdateInput), so auto sinks the model; left unsized it runs hybrid;
v2 and hybrid run it through the control-flow kernels; every way gives onnxruntime's outputs."""
from __future__ import annotations

import numpy as np
import onnx
import pytest

from control_flow_testing import dynamic_if_model, saved_if_case
from workbench.cli import main


@pytest.fixture
def if_files(tmp_path):
    """The model, its inputs as --input args (batch 4, else branch), onnxruntime's z."""
    _, inputs, want = saved_if_case(tmp_path, 4, False)
    return tmp_path, [a for name, f in inputs.items() for a in ("--input", f"{name}={f}")], want


@pytest.mark.parametrize("mode, about", [
    ("auto", "sink (v1 DavinciModel): "),   # every shape known from the inputs
    ("sink", "sink (v1 DavinciModel): "),
    ("v2", "v2 (ExecuteGraph"),
    ("hybrid", "hybrid (HybridDavinciModel"),
])
def test_each_mode_runs_the_dynamic_if_as_onnxruntime_does(if_files, capsys, mode, about):
    tmp_path, inputs, want = if_files
    out = tmp_path / f"{mode}.npz"
    assert main(["exec", str(tmp_path / "dynamic_if.onnx"), "--mode", mode, *inputs,
                 "--output", str(out)]) == 0
    assert f"dynamic_if.onnx: {about}" in capsys.readouterr().out
    np.testing.assert_allclose(np.load(out)["z"], want, rtol=1e-6)


@pytest.mark.parametrize("batch", ["batch", "p2o.DynamicDimension.0", "?", None])
def test_a_symbolic_dim_is_sized_by_the_input_shape_given_else_the_model_runs_hybrid(
        tmp_path, capsys, batch):
    path = tmp_path / "m.onnx"
    onnx.save(dynamic_if_model(batch), path)
    assert main(["exec", str(path), "--input-shape", "x0:5,3"]) == 0
    text = capsys.readouterr().out
    assert "m.onnx: sink (v1 DavinciModel)" in text and "z: f32[5,3]" in text
    assert main(["exec", str(path)]) == 0
    text = capsys.readouterr().out
    assert "m.onnx: hybrid (HybridDavinciModel" in text and "z: f32[1,3]" in text


@pytest.mark.parametrize("args, message", [
    (["--mode", "sink"], "dynamic_if.onnx: graph dynamic_if: node x0 (Data) output 0 is "
                         "f32[?,3]: a static build needs every shape known; GE runs such a "
                         "model hybrid"),
    (["--input-shape", "x0:5,4"], "input x0: shape [5, 4], the model takes ['?', 3]"),
    (["--input-shape", "x0:5"], "input x0: shape [5], the model takes ['?', 3]"),
    (["--input-shape", "q:5"], "a shape for 'q', which is no input of the model (inputs: x0, c, "
                               "w)"),
    (["--input-shape", "x0:5,a"], "--input_shape 'x0:5,a': dims must be integers"),
])
def test_shapes_that_cannot_run_are_refused_in_one_line(tmp_path, capsys, args, message):
    path = tmp_path / "dynamic_if.onnx"
    onnx.save(dynamic_if_model(), path)
    assert main(["exec", str(path), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
