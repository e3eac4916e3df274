"""A Scan on the sink path: ScanPass makes it a Loop that runs exactly M times, so its scan
outputs have static shapes and WhileLabelMaker sinks it (labels, a ScatterND per step's row);
checked against onnxruntime. A Scan-8 sinks as two Loops (its batch entries, each one's steps),
checked against onnxruntime and the node suite; a Scan ScanPass keeps is refused in one line."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper

from control_flow_testing import (assert_same, floats, model, onnxruntime_outputs,
                                  reversed_scan_model, scan_8_model, vi)
from ge_core.compiler import CompileOptions
from ge_core.om import GeModel, load_om_bytes, om_bytes
from ge_core.session import GraphManager
from npu_emu.world import World
from workbench.cli import main
from workbench.conformance import node_cases

MANAGER = GraphManager(CompileOptions(dump=None))
FEEDS = {"acc0": floats(1, 2), "x": floats(2, 2, 4), "u": floats(3, 4, 2), "w0": floats(4, 2)}


def _sunk(graph, feeds: dict) -> tuple[list[str], dict]:
    """Build ``graph`` static (it must not go hybrid), run its OM: (task node types, outputs)."""
    with World().entered():
        model = MANAGER.build_root_model(graph)
        assert isinstance(model, GeModel)   # static: built and sunk, not hybrid
        types = [n.type for n in model.graph]
        return types, MANAGER.run(load_om_bytes(om_bytes(model)), feeds)


def test_a_scan_with_a_static_length_is_sunk_and_gives_onnxruntimes_outputs():
    proto = reversed_scan_model(seq=4)
    graph = MANAGER.parse(proto)
    MANAGER.compile(graph)
    loop = next(n for n in graph if n.type == "Loop")
    assert [str(d) for d in loop.op_desc.output_descs] == ["f32[2]", "f32[4,2]", "f32[4,2]"]
    types, got = _sunk(graph, FEEDS)
    assert types.count("LabelSwitchByIndex") == 1 and types.count("ScatterND") == 2
    assert_same(got, onnxruntime_outputs(proto, FEEDS))


def test_a_scan_output_of_empty_rows_is_sunk_and_gives_onnxruntimes_outputs():
    """A step's row with a dim of 0: each step's row is reshaped to [1, *row dims] with
    allowzero, so that 0 is 0, not "as the row's" (which left the dim unknown, and the build's
    sizing raised: an internal error, found by mutating the node suite's expanded models)."""
    zero = helper.make_tensor("zero", onnx.TensorProto.INT64, [1], [0])
    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "x_t"], ["acc_out"]),
         helper.make_node("Constant", [], ["at"], value=zero),
         helper.make_node("Slice", ["x_t", "at", "at"], ["e_t"])],
        "body", [vi("acc_in", [2]), vi("x_t", [2])], [vi("acc_out", [2]), vi("e_t", [0])])
    proto = model([helper.make_node("Scan", ["acc0", "x"], ["acc", "e"], num_scan_inputs=1,
                                    body=body)],
                  [vi("acc0", [2]), vi("x", [3, 2])], [vi("acc", [2]), vi("e", [3, 0])],
                  "empty_rows")
    graph = MANAGER.parse(proto)
    MANAGER.compile(graph)
    feeds = {"acc0": floats(1, 2), "x": floats(2, 3, 2)}
    types, got = _sunk(graph, feeds)
    assert got["e"].shape == (3, 0) and types.count("ScatterND") == 1
    assert_same(got, onnxruntime_outputs(proto, feeds))


def test_a_scan_8_with_sequence_lens_sinks_as_two_loops_and_gives_onnxruntimes_outputs():
    proto = scan_8_model(batch=3, seq=4, lens=True)
    graph = MANAGER.parse(proto)
    MANAGER.compile(graph)
    assert [n.type for n in graph.all_nodes() if n.op_desc.subgraph_names] == ["Loop", "Loop"]
    feeds = {"acc0": floats(1, 3, 2), "n0": floats(2, 3, 1), "x": floats(3, 3, 4, 2),
             "u": floats(4, 3, 4, 2), "w0": floats(5, 2), "lens": np.array([4, 1, 2], np.int64)}
    types, got = _sunk(graph, feeds)
    # a label program for each level: the batch entries' Loop and, inlined in its body, the
    # steps' Loop; rows for the outer's four outputs and the inner's two scan outputs
    assert types.count("LabelSwitchByIndex") == 2 and types.count("ScatterND") == 6
    assert_same(got, onnxruntime_outputs(proto, feeds))


@pytest.mark.parametrize("mode", ["sink", "v2", "hybrid"])
def test_the_node_suites_scan_8_runs_through_exec_and_gives_the_suites_outputs(tmp_path, mode):
    test = next(t for t in node_cases.testcases() if t.name == "test_scan_sum")
    proto, [(feeds, expected)], _ = node_cases.load(test)
    onnx.save(proto, tmp_path / "scan_sum.onnx")
    args = ["exec", str(tmp_path / "scan_sum.onnx"), "--mode", mode,
            "--output", str(tmp_path / "out.npz")]
    for name, value in feeds.items():
        np.save(tmp_path / f"{name}.npy", value)
        args += ["--input", f"{name}={tmp_path / name}.npy"]
    assert main(args) == 0
    got = np.load(tmp_path / "out.npz")
    for out, want in zip(proto.graph.output, expected):
        np.testing.assert_allclose(got[out.name], want, rtol=test.rtol, atol=test.atol)


def _kept_scan(path) -> str:
    """A Scan-9 stacking its scan output on axis 1 of a body result reshaped to a shape the
    model takes as an input of unknown length: where that axis lands is unknown before
    InferShape, so ScanPass keeps it a Scan."""
    body = onnx.helper.make_graph(
        [onnx.helper.make_node("Add", ["s_in", "x_t"], ["s_out"]),
         onnx.helper.make_node("Reshape", ["s_out", "shape"], ["y_t"])], "body",
        [onnx.helper.make_tensor_value_info(n, 1, [2]) for n in ("s_in", "x_t")],
        [onnx.helper.make_tensor_value_info("s_out", 1, [2]),
         onnx.helper.make_tensor_value_info("y_t", 1, None)])
    node = onnx.helper.make_node("Scan", ["s0", "x"], ["s", "y"], name="kept",
                                 num_scan_inputs=1, body=body, scan_output_axes=[1])
    graph = onnx.helper.make_graph(
        [node], "kept", [onnx.helper.make_tensor_value_info("s0", 1, [2]),
                         onnx.helper.make_tensor_value_info("x", 1, [3, 2]),
                         onnx.helper.make_tensor_value_info("shape", 7, [None])],
        [onnx.helper.make_tensor_value_info("s", 1, [2]),
         onnx.helper.make_tensor_value_info("y", 1, None)])
    onnx.save(onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)]),
              path)
    return str(path)


def test_a_scan_scanpass_keeps_is_refused_on_the_sink_path_in_one_line_and_runs_hybrid(
        tmp_path, capsys):
    model = _kept_scan(tmp_path / "kept.onnx")
    assert main(["exec", model, "--mode", "sink", "--input-shape", "shape:2"]) != 0
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert "node kept (Scan)" in err and "ScanPass kept it a Scan: scan output 0" in err
    np.save(tmp_path / "shape.npy", np.array([1, 2], np.int64))
    assert main(["exec", model, "--mode", "hybrid", "--input",
                 f"shape={tmp_path / 'shape.npy'}"]) == 0
