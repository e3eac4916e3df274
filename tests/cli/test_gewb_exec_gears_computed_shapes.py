"""Gears on a model that computes a Reshape's shape with Shape (as YOLO heads, PP-LCNet and CRNNs
do): each gear's copy folds its shape arithmetic as a fixed-shape build does (its weights, Data
reading the root's Consts, are seen through), so the gears build statically and every mode gives
onnxruntime's output for each gear; a model the gears cannot build runs hybrid and says so in one
line."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T, helper, numpy_helper

from control_flow_testing import onnxruntime_outputs
from workbench.cli import main

def reshape_by_shape_model() -> onnx.ModelProto:
    """y = sum(reshape(x, [shape(x)[0], -1]), axis 0), x [n, 2, h, w]."""
    inits = [numpy_helper.from_array(np.array(0, np.int64), "zero"),
             numpy_helper.from_array(np.array([0], np.int64), "axes"),
             numpy_helper.from_array(np.array([-1], np.int64), "rest")]
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
             helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
             helper.make_node("Concat", ["n1", "rest"], ["shape"], axis=0),
             helper.make_node("Reshape", ["x", "shape"], ["r"]),
             helper.make_node("ReduceSum", ["r", "axes"], ["y"], keepdims=1)]
    graph = helper.make_graph(nodes, "reshape_by_shape",
                              [helper.make_tensor_value_info("x", T.FLOAT, ["n", 2, "h", "w"])],
                              [helper.make_tensor_value_info("y", T.FLOAT, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


GEARS = [
    (["--input-shape", "x:-1,2,3,4", "--dynamic-batch-size", "1,2,4"], (2, 2, 3, 4)),
    (["--input-shape", "x:1,2,-1,-1", "--dynamic-image-size", "3,4;5,6"], (1, 2, 5, 6)),
    (["--input-shape", "x:1,2,-1,4", "--dynamic-dims", "3;5"], (1, 2, 5, 4)),
]


@pytest.mark.parametrize("mode", ["auto", "sink", "v2", "hybrid"])
@pytest.mark.parametrize("gears, shape", GEARS)
def test_each_gear_folds_its_shapes_and_runs_as_onnxruntime(tmp_path, capsys, mode, gears,
                                                             shape):
    proto = reshape_by_shape_model()
    onnx.save(proto, tmp_path / "m.onnx")
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "y.npz"
    assert main(["exec", str(tmp_path / "m.onnx"), "--mode", mode, *gears,
                 "--input", f"x={tmp_path / 'x.npy'}", "--output", str(out)]) == 0
    text = capsys.readouterr().out
    if mode in ("auto", "sink"):
        assert "m.onnx: sink (v1 DavinciModel)" in text and "gear " in text
    np.testing.assert_allclose(np.load(out)["y"], onnxruntime_outputs(proto, {"x": x})["y"],
                               rtol=1e-5)


def test_gears_that_cannot_be_built_run_hybrid_and_say_so_in_one_line(tmp_path, capsys):
    graph = helper.make_graph([helper.make_node("NonZero", ["x"], ["y"])], "nz",
                              [helper.make_tensor_value_info("x", T.FLOAT, ["n", 3])],
                              [helper.make_tensor_value_info("y", T.INT64, [2, None])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              tmp_path / "nz.onnx")
    assert main(["exec", str(tmp_path / "nz.onnx"), "--input-shape", "x:-1,3",
                 "--dynamic-batch-size", "1,2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("nz.onnx: the gears were not built, running hybrid: graph nz: "
                               "node ascend_mbatch_shape_case (Case) output 0 is i64[2,?]")
    assert lines[1] == "nz.onnx: hybrid (HybridDavinciModel, host-scheduled)"
