"""The model commands end to end through `gewb`'s main(): graph, ops, compile (-o, cache),
passes, om-info, and their one-line errors."""
import io
import json
import re
import sys
from pathlib import Path

import pytest

from workbench.cli import main

SAMPLE = Path(__file__).resolve().parents[2] / "sample_models" / "tiny_cnn.onnx"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GEWB_CACHE_DIR", str(tmp_path / "cache"))


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_graph_prints_the_ir_and_runs_it(capsys):
    code, out, _ = run(capsys, "graph", SAMPLE, "--run")
    assert code == 0
    assert "%conv1 : Conv(%input:0, %conv1.w:0, %conv1.b:0)" in out
    assert "prob: f32[1,10] min " in out


def test_the_repl_debugs_the_bundled_sample(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("GEWB_HISTORY", str(tmp_path / "history"))
    monkeypatch.setattr(sys, "stdin", io.StringIO("continue\nquit\n"))   # piped, as a script
    assert main(["repl", str(SAMPLE)]) == 0
    out = capsys.readouterr().out
    assert ("target tiny_cnn.onnx: ONNX model, phases parse > compile > build > load > execute"
            in out)
    assert "output prob: f32[1,10]" in out


def test_compile_writes_an_om_and_the_second_compile_hits_the_cache(capsys, tmp_path):
    om = tmp_path / "tiny.om"
    code, out, _ = run(capsys, "compile", SAMPLE, "-o", om)
    assert code == 0 and om.exists()
    assert "streams: 2 logical" in out and "memory: feature map" in out
    first = om.read_bytes()
    om.unlink()
    code, out, _ = run(capsys, "compile", SAMPLE, "-o", om)
    assert code == 0 and out.startswith("compile cache hit: reused ")
    assert om.read_bytes() == first
    code, out, _ = run(capsys, "compile", SAMPLE, "-o", om, "--stream-max-parallel-num", "4")
    assert "cache hit" not in out  # other options, other key


def test_the_build_summary_counts_the_events_a_stream_split_adds(capsys, tmp_path):
    """The sync steps' counts stop before SplitStreams, whose event pairs are tasks too: the
    summary says how many there are, one a split, as the OM's event records show."""
    om = tmp_path / "split.om"
    code, out, _ = run(capsys, "compile", SAMPLE, "--max-task-count", "30", "-o", om)
    splits = int(re.search(r"; (\d+) split\)", out).group(1))
    events = re.search(r"events: (\d+) -> .*; (\d+) more chain the split streams$", out, re.M)
    assert splits > 0 and int(events.group(2)) == splits
    _, info, _ = run(capsys, "om-info", om)
    assert info.count("EVENT_RECORD") == int(events.group(1)) + splits
    _, whole, _ = run(capsys, "compile", SAMPLE)
    assert "split" not in whole


def test_more_parallelism_gives_more_streams(capsys):
    _, one, _ = run(capsys, "compile", SAMPLE)
    _, four, _ = run(capsys, "compile", SAMPLE, "--stream-max-parallel-num", "4")
    count = lambda out: int(out.split("streams: ")[1].split()[0])  # noqa: E731
    assert count(four) > count(one)


def test_om_info_text_and_json(capsys, tmp_path):
    om = tmp_path / "tiny.om"
    run(capsys, "compile", SAMPLE, "-o", om, "--no-cache")
    code, out, _ = run(capsys, "om-info", om)
    assert code == 0 and "magic                   0x444f4d49" in out
    assert "EVENT_RECORD" in out and "stream s1:" in out
    code, out, _ = run(capsys, "om-info", om, "--json")
    info = json.loads(out)
    assert info["header"]["headsize"] == 256 and info["model"]["stream_num"] == 2


def test_om_info_on_a_corrupted_file_is_one_line(capsys, tmp_path):
    om = tmp_path / "tiny.om"
    run(capsys, "compile", SAMPLE, "-o", om, "--no-cache")
    data = bytearray(om.read_bytes())
    data[-10] ^= 0xFF
    om.write_bytes(bytes(data))
    code, out, err = run(capsys, "om-info", om)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "checksum" in err


def test_passes_lists_optimisation_and_stream_passes(capsys):
    code, out, _ = run(capsys, "passes", SAMPLE)
    assert code == 0
    # Prepare's GEPass lists GE's node passes it runs, changed or not
    assert ("InferShapeForPreprocess" in out and "[CondRemovePass, InferShapePass, "
            "ReplaceWithEmptyConstPass, DimensionComputePass, ConstantFoldingPass]" in out)
    for name in ("InferShapeForPreprocess", "ConvBatchnormFusionPass", "AssignByDependencyPass",
                 "OptimizeBySendEvents", "GenerateSyncEventNodes"):
        assert name in out


def test_passes_marks_our_clean_ups_in_optimize_stage2_only(capsys):
    """ConstantFuseSamePass and PrunePass are GE's, run in stage 1 as GE does; GE's
    OptimizeStage2 runs neither, so only their runs there are marked."""
    code, out, _ = run(capsys, "passes", SAMPLE)
    assert code == 0
    runs = {tuple(re.split(r"\s{2,}", line)[1:3]) for line in out.splitlines()[1:]}
    for name in ("ConstantFuseSamePass", "PrunePass"):
        assert ("OptimizeOriginalGraph", name) in runs
        assert ("OptimizeStage2", f"{name} (not GE)") in runs
        assert ("OptimizeOriginalGraph", f"{name} (not GE)") not in runs
        assert ("OptimizeStage2", name) not in runs


def test_bad_model_is_one_line(capsys, tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    code, out, err = run(capsys, "compile", bad)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "bad.onnx" in err
    code, _, err = run(capsys, "graph", tmp_path / "missing.onnx")
    assert code == 2 and "no such file" in err


def test_the_repl_ends_a_run_on_a_bad_model_as_compile_says_it(capsys, tmp_path, monkeypatch):
    # a Conv whose filter takes 5 channels of a 3-channel input: the parse's InferShape fails
    import onnx
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="conv1")], "bad",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [helper.make_tensor("w", TensorProto.FLOAT, [4, 5, 3, 3], [0.0] * 180)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
              tmp_path / "bad.onnx")
    fault = "node 'conv1' (op Conv): x has 3 channels, filter [4, 5, 3, 3] in 1 group(s) takes 5"
    code, _, err = run(capsys, "compile", tmp_path / "bad.onnx")
    assert code == 2 and err.rstrip().endswith(fault)
    monkeypatch.setenv("GEWB_HISTORY", str(tmp_path / "history"))
    monkeypatch.setattr(sys, "stdin", io.StringIO("continue\nquit\n"))
    main(["repl", str(tmp_path / "bad.onnx")])
    (error,) = [line for line in capsys.readouterr().out.splitlines() if "error:" in line]
    # the message names the node; no exception class (that is for our own bugs)
    assert error.strip().startswith("error: ") and error.endswith(fault) and "Error:" not in error


def test_exec_runs_a_loop_sunk_in_v2_and_hybrid_as_onnxruntime_does(capsys, tmp_path):
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper
    t = helper.make_tensor_value_info
    body = helper.make_graph(
        [helper.make_node("Add", ["x_in", "one"], ["x_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])], "body",
        [t("i", TensorProto.INT64, []), t("cond_in", TensorProto.BOOL, []),
         t("x_in", TensorProto.FLOAT, [2])],
        [t("cond_out", TensorProto.BOOL, []), t("x_out", TensorProto.FLOAT, [2])],
        [helper.make_tensor("one", TensorProto.FLOAT, [2], [1.0, 1.0])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["M", "c", "x"], ["y"], body=body)], "loop",
        [t("x", TensorProto.FLOAT, [2])], [t("y", TensorProto.FLOAT, [2])],
        [helper.make_tensor("M", TensorProto.INT64, [], [3]),
         helper.make_tensor("c", TensorProto.BOOL, [], [True])])
    path = tmp_path / "loop.onnx"
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(model, path)
    x = np.array([0.5, -2.0], np.float32)
    np.save(tmp_path / "x.npy", x)
    (want,) = ort.InferenceSession(model.SerializeToString()).run(None, {"x": x})
    for mode, about in [("auto", "sink (v1 DavinciModel): "), ("v2", "v2 (ExecuteGraph"),
                        ("hybrid", "hybrid (HybridDavinciModel")]:
        out_file = tmp_path / f"{mode}.npz"
        code, out, _ = run(capsys, "exec", path, "--mode", mode, "--input",
                           f"x={tmp_path / 'x.npy'}", "--output", out_file)
        assert code == 0 and about in out
        np.testing.assert_allclose(np.load(out_file)["y"], want, rtol=1e-6)


def test_string_nodes_say_they_run_on_the_host_and_the_model_runs_hybrid(capsys, tmp_path):
    import onnx
    from onnx import TensorProto, helper
    t = helper.make_tensor_value_info
    graph = helper.make_graph(
        [helper.make_node("Cast", ["x"], ["s"], to=TensorProto.STRING, name="to_text"),
         helper.make_node("StringConcat", ["s", "s"], ["y"], name="twice")], "strings",
        [t("x", TensorProto.INT64, [3])], [t("y", TensorProto.STRING, [3])])
    path = tmp_path / "strings.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)]), path)
    code, out, _ = run(capsys, "graph", path, "--run")
    assert code == 0 and "y: str[3] 3 elements" in out
    assert ("node twice (StringConcat) runs on DNN_VM_HOST_CPU: a string op: strings live in "
            "host memory; the model loads hybrid") in out
    code, out, _ = run(capsys, "exec", path)
    assert code == 0 and "hybrid" in out and "y: str[3]" in out
    code, out, err = run(capsys, "exec", path, "--mode", "sink")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "node to_text (Cast) runs on the host CPU engine" in err


def test_exec_prints_and_writes_a_sequence_output_tensor_by_tensor(capsys, tmp_path):
    import numpy as np
    import onnx
    from onnx import TensorProto, helper
    parts = helper.make_value_info("parts", helper.make_sequence_type_proto(
        helper.make_tensor_type_proto(TensorProto.FLOAT, None)))
    graph = helper.make_graph(
        [helper.make_node("SplitToSequence", ["x", "sizes"], ["parts"], axis=0)], "seq",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 2])], [parts],
        [helper.make_tensor("sizes", TensorProto.INT64, [2], [1, 2])])
    path = tmp_path / "seq.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)]), path)
    code, out, _ = run(capsys, "exec", path, "--output", tmp_path / "out.npz")
    assert code == 0 and "parts: sequence of 2: f32[1,2], f32[2,2]" in out
    written = np.load(tmp_path / "out.npz")
    assert sorted(written) == ["parts.0", "parts.1"] and written["parts.1"].shape == (2, 2)
