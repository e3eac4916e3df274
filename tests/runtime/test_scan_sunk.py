"""A Scan on the sink path: ScanPass makes it a Loop that runs exactly M times, so its scan
outputs have static shapes and WhileLabelMaker sinks it (labels, a ScatterND per step's row);
checked against onnxruntime. A Scan-8, which ScanPass keeps, is refused in one line."""
from __future__ import annotations

import numpy as np
import onnx

from control_flow_testing import floats, onnxruntime_outputs, reversed_scan_model
from ge_core.compiler import CompileOptions
from ge_core.om import GeModel, load_om_bytes, om_bytes
from ge_core.session import GraphManager
from npu_emu.world import World
from workbench.cli import main

MANAGER = GraphManager(CompileOptions(dump=None))
FEEDS = {"acc0": floats(1, 2), "x": floats(2, 2, 4), "u": floats(3, 4, 2), "w0": floats(4, 2)}


def test_a_scan_with_a_static_length_is_sunk_and_gives_onnxruntimes_outputs():
    proto = reversed_scan_model(seq=4)
    graph = MANAGER.parse(proto)
    MANAGER.compile(graph)
    loop = next(n for n in graph if n.type == "Loop")
    assert [str(d) for d in loop.op_desc.output_descs] == ["f32[2]", "f32[4,2]", "f32[4,2]"]
    with World().entered():
        model = MANAGER.build_root_model(graph)
        assert isinstance(model, GeModel)   # static: built and sunk, not hybrid
        types = [n.type for n in model.graph]
        assert types.count("LabelSwitchByIndex") == 1 and types.count("ScatterND") == 2
        got = MANAGER.run(load_om_bytes(om_bytes(model)), FEEDS)
    want = onnxruntime_outputs(proto, FEEDS)
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-5, atol=1e-6, err_msg=name)


def _scan_8(path) -> str:
    body = onnx.helper.make_graph(
        [onnx.helper.make_node("Add", ["s_in", "x_t"], ["s_out"]),
         onnx.helper.make_node("Identity", ["s_out"], ["y_t"])], "body",
        [onnx.helper.make_tensor_value_info(n, 1, [2]) for n in ("s_in", "x_t")],
        [onnx.helper.make_tensor_value_info(n, 1, [2]) for n in ("s_out", "y_t")])
    node = onnx.helper.make_node("Scan", ["", "s0", "x"], ["s", "y"], name="scan8",
                                 num_scan_inputs=1, body=body)
    graph = onnx.helper.make_graph(
        [node], "scan8", [onnx.helper.make_tensor_value_info("s0", 1, [1, 2]),
                          onnx.helper.make_tensor_value_info("x", 1, [1, 3, 2])],
        [onnx.helper.make_tensor_value_info("s", 1, [1, 2]),
         onnx.helper.make_tensor_value_info("y", 1, [1, 3, 2])])
    onnx.save(onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 8)]),
              path)
    return str(path)


def test_a_scan_8_is_refused_on_the_sink_path_in_one_line_and_runs_hybrid(tmp_path, capsys):
    model = _scan_8(tmp_path / "scan8.onnx")
    assert main(["exec", model, "--mode", "sink"]) != 0
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert "node scan8 (Scan)" in err and "ScanPass kept it a Scan: Scan-8" in err
    assert main(["exec", model, "--mode", "hybrid"]) == 0
