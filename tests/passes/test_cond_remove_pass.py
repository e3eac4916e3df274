"""CondRemovePass: an If whose condition folds (a shape compared with 1, as silero-vad's exporter
writes) becomes the branch it takes, so the model sinks even when the other branch cannot be
shape-inferred for these shapes; every mode gives onnxruntime's output."""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import onnx
import pytest

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.graph import GeShape
from ge_core.parser import parse_onnx
from workbench.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from control_flow_testing import onnxruntime_outputs, squeeze_if_one_model  # noqa: E402


@pytest.mark.parametrize("k, z", [(1, "[1,128]"), (2, "[1,128,2]")])
def test_a_folded_condition_leaves_only_the_branch_taken(k, z):
    graph = parse_onnx(squeeze_if_one_model())
    x = graph.find_node("x").op_desc
    x.update_output_desc(0, replace(x.output_descs[0], shape=GeShape((1, 128, k))))
    result = compile_graph(graph, CompileOptions(dump=None))
    assert not [n for n in graph.all_nodes() if n.type == "If"] and not graph.subgraphs
    assert str(graph.output_node.op_desc.input_descs[0].shape) == z   # squeezed or not
    first = result.passes[0]   # Prepare's GEPass, as GE's InferShapeForPreprocess runs it
    assert first.name == "InferShapeForPreprocess" and "CondRemovePass" in dict(first.detail)


@pytest.mark.parametrize("mode", ["auto", "sink", "v2", "hybrid"])
@pytest.mark.parametrize("k", [1, 2])
def test_every_mode_runs_the_branch_taken_as_onnxruntime(tmp_path, capsys, mode, k):
    proto = squeeze_if_one_model()
    onnx.save(proto, tmp_path / "m.onnx")
    x = np.random.default_rng(k).standard_normal((1, 128, k)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "z.npz"
    assert main(["exec", str(tmp_path / "m.onnx"), "--mode", mode,
                 "--input", f"x={tmp_path / 'x.npy'}", "--output", str(out)]) == 0
    if mode == "auto":
        assert "m.onnx: sink (v1 DavinciModel)" in capsys.readouterr().out
    np.testing.assert_allclose(np.load(out)["z"], onnxruntime_outputs(proto, {"x": x})["z"])
