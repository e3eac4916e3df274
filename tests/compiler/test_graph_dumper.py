"""Graph dumps as GE writes them (graph_utils.cc): ge_proto_* is a ModelDef in protobuf text format,
ge_onnx_* an ONNX model onnx itself loads and checks, ge_readable_* our IR; each format numbered
in the order the dumps are made, the Build dump last; GE's switches; a dump asked for is written
even when the compile cache holds the model."""
import os
import sys
from pathlib import Path

import onnx
import pytest
from google.protobuf import text_format
from onnx import TensorProto, helper

from ge_core.atc import atc
from ge_core.compiler import CompileOptions, DumpConfig, compile_graph
from ge_core.compiler.graph_dumper import WHITELIST
from ge_core.compiler.model_builder import BuildOptions
from ge_core.graph import dump_graph
from ge_core.graph.attr_names import ATTR_NAME_WEIGHTS
from ge_core.graph.dump import Detail
from ge_core.graph.types import DataType
from ge_core.om.model_serializer import graph_of
from ge_core.om.proto import ge_ir_pb2
from ge_core.parser import parse_onnx
from npu_emu.world import World
from workbench.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parent / "labels"))
from labels_testing import if_model  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[2] / "sample_models" / "tiny_cnn.onnx"


def dumped(tmp_path, model=SAMPLE, detail=Detail.NO_DATA, level="2", **config):
    """ATC with dumps, in a fresh World (a process: its file counters start at 0)."""
    dump = DumpConfig(tmp_path, detail, level, **config)
    with World().entered():
        atc(parse_onnx(model), CompileOptions(dump=dump), BuildOptions(dump=dump))
    return tmp_path


def stages(directory: Path, prefix: str) -> list[tuple[int, str]]:
    """(index, stage) of each ``prefix`` file, by file name order (extension dropped)."""
    out = []
    for path in sorted(directory.glob(f"{prefix}_*")):
        index, rest = path.stem.removeprefix(f"{prefix}_").split("_graph_0_", 1)
        out.append((int(index), rest))
    return out


def test_each_format_numbers_its_dumps_in_the_order_they_are_made(tmp_path):
    dumped(tmp_path)
    proto = stages(tmp_path, "ge_proto")
    assert [i for i, _ in proto] == list(range(len(proto)))
    names = [s for _, s in proto]
    assert names[0] == "PreRunBegin" and names[-1] == "Build" and set(names) <= set(WHITELIST)
    assert names.index("PreRunAfterOptimizeGraphBeforeBuild") == len(names) - 2
    assert stages(tmp_path, "ge_onnx") == proto
    assert sorted(set(stages(tmp_path, "ge_readable"))) == proto   # a .txt and a .dot each
    assert (tmp_path / "ge_proto_00000000_graph_0_PreRunBegin.txt").exists()
    assert (tmp_path / "ge_onnx_00000000_graph_0_PreRunBegin.pbtxt").exists()


def test_a_second_compile_in_the_same_process_numbers_on(tmp_path):
    dump = DumpConfig(tmp_path)
    with World().entered():
        for _ in range(2):
            atc(parse_onnx(SAMPLE), CompileOptions(dump=dump), BuildOptions(dump=dump))
    builds = [i for i, s in stages(tmp_path, "ge_proto") if s == "Build"]
    assert len(builds) == 2 and builds[1] == 2 * builds[0] + 1


@pytest.mark.parametrize("model", [SAMPLE, "if"])
@pytest.mark.parametrize("detail", list(Detail))
def test_ge_onnx_dumps_load_and_pass_the_onnx_checker(tmp_path, model, detail):
    if model == "if":
        onnx.save(if_model(), tmp_path / "if.onnx")
        model = tmp_path / "if.onnx"
    dumped(tmp_path / "dump", model, detail, level="1")
    files = sorted((tmp_path / "dump").glob("ge_onnx_*.pbtxt"))
    assert len(files) >= 6
    for path in files:
        proto = onnx.load(path)
        onnx.checker.check_model(proto)
        node_attrs = {a.name for n in proto.graph.node for a in n.attribute}
        assert ("output_desc_shape:0" in node_attrs) == (detail != Detail.STRUCTURE)


def test_ge_onnx_keeps_ge_names_links_and_subgraphs(tmp_path):
    onnx.save(if_model(), tmp_path / "if.onnx")
    dumped(tmp_path / "d", tmp_path / "if.onnx", Detail.FULL, level="PreRunBegin")
    proto = onnx.load(next((tmp_path / "d").glob("ge_onnx_*PreRunBegin.pbtxt")))
    links = {n.name: (n.domain, n.op_type, list(n.input), list(n.output)) for n in proto.graph.node}
    assert links["if0"] == ("ge", "If", ["c:0", "Relu_0:0", "w:0"], ["if0:0"])
    assert links["NetOutput"] == ("ge", "NetOutput", ["Neg_2:0"], [])
    assert [o.name for o in proto.graph.output] == ["Neg_2:0"]
    if0 = next(n for n in proto.graph.node if n.name == "if0")
    then = next(a.g for a in if0.attribute if a.name == "if0_then_branch")
    assert [(n.name, list(n.input)) for n in then.node] == [
        ("x", []), ("Add_0", ["if0_then_branch/x:0", "if0_then_branch/x:0"]),
        ("NetOutput", ["if0_then_branch/Add_0:0"])]


def test_ge_proto_is_a_model_def_in_text_format(tmp_path):
    dumped(tmp_path / "full", detail=Detail.FULL)
    full = tmp_path / "full"
    model = text_format.Parse((full / "ge_proto_00000000_graph_0_PreRunBegin.txt").read_text(),
                              ge_ir_pb2.ModelDef())
    # the same graph our readable dump shows, rebuilt from the ModelDef alone
    assert dump_graph(graph_of(model), Detail.FULL) == \
        (full / "ge_readable_00000000_graph_0_PreRunBegin.txt").read_text()
    dumped(tmp_path / "nodata")
    lean = text_format.Parse(
        next((tmp_path / "nodata").glob("ge_proto_*_PreRunBegin.txt")).read_text(),
        ge_ir_pb2.ModelDef())
    consts = [op for op in lean.graph[0].op if op.type == "Const"]
    assert consts and all(ATTR_NAME_WEIGHTS not in op.attr for op in consts)


def test_a_host_value_is_dumped_with_no_device_size(tmp_path):
    """A sequence (DT_VARIANT) or a string has no device bytes: its desc says no size, and the
    compile goes on to the build's own one-line refusal (the dump said 'internal error')."""
    model = Path(onnx.__file__).parent / "backend" / "test" / "data" / "simple" / \
        "test_sequence_model8" / "model.onnx"
    assert main(["compile", str(model), "-o", str(tmp_path / "m.om"), "--no-cache",
                 "--dump", str(tmp_path / "dump")]) == 2
    dump = text_format.Parse(
        next((tmp_path / "dump").glob("ge_proto_*_PreRunBegin.txt")).read_text(),
        ge_ir_pb2.ModelDef())
    variants = [d for op in dump.graph[0].op for d in op.output_desc
                if d.dtype == DataType.DT_VARIANT]
    assert variants and all(d.size == 0 for d in variants)


def test_a_tensor_too_large_for_an_int64_size_is_a_skipped_dump_not_a_failure(tmp_path):
    """f32[2^62, 4] is 2^66 bytes: no OM size field holds it. The ge_proto dump of such a graph
    is skipped with a warning naming the node, as GE skips a graph its serializer refuses."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1 << 62, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1 << 62, 4])
    model = helper.make_model(helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "huge",
                                                [x], [y]),
                              opset_imports=[helper.make_opsetid("", 13)])
    with World().entered():
        result = compile_graph(parse_onnx(model),
                               CompileOptions(dump=DumpConfig(tmp_path, Detail.NO_DATA, "2")))
    assert not list(tmp_path.glob("ge_proto_*")) and list(tmp_path.glob("ge_readable_*"))
    assert any("node x (Data): tensor f32[4611686018427387904,4] is "
               "73,786,976,294,838,206,496 bytes, more than an int64 size holds" in w
               for w in result.warnings), result.warnings


def test_levels_and_formats_follow_ges_switches(tmp_path):
    every = dumped(tmp_path / "l1", level="1")
    names = {s for _, s in stages(every, "ge_proto")}
    assert "AfterEnginePlacer" in names                      # not on the whitelist
    assert not any("OptimizeSubGraph" in n for n in names)   # engine subgraphs: level 0 only
    only_build = dumped(tmp_path / "l3", level="3", formats=("onnx",))
    assert [p.name for p in only_build.iterdir()] == ["ge_onnx_00000000_graph_0_Build.pbtxt"]
    cfg = DumpConfig.from_env({"DUMP_GE_GRAPH": "1", "DUMP_GRAPH_FORMAT": "ge_proto|readable",
                               "DUMP_GRAPH_PATH": str(tmp_path)})
    assert cfg.formats == ("ge_proto", "readable") and cfg.detail == Detail.FULL
    assert cfg.directory.name == f"pid_{os.getpid()}_deviceid_0"
    assert DumpConfig.from_env({"DUMP_GE_GRAPH": "2"}).formats == ("ge_proto", "onnx", "readable")
    assert DumpConfig.from_env({}) is None
    keyed = DumpConfig(tmp_path, level="Build|Prepare")
    assert keyed.wants("PreRunAfterPrepare") and not keyed.wants("AfterInfershape")
    assert DumpConfig(tmp_path, level="2").wants("RunCustomPassBeforeInfershape")


def test_dump_level_zero_adds_every_changed_pass(tmp_path):
    dumped(tmp_path, detail=Detail.STRUCTURE, level="0", formats=("readable",))
    names = [p.name for p in tmp_path.glob("*.txt")]
    assert any("OptimizeOriginalGraph_OptimizeStage1_2" in n for n in names)
    assert any("AIcoreEngine_OptimizeSubGraphBefore" in n for n in names)
    text = next(p for p in tmp_path.glob("*PreRunBegin.txt")).read_text()
    assert "{" not in text  # structure only: no attributes


def test_a_dump_is_written_when_the_compile_cache_holds_the_model(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GEWB_CACHE_DIR", str(tmp_path / "cache"))
    om = tmp_path / "tiny.om"
    assert main(["compile", str(SAMPLE), "-o", str(om)]) == 0   # fills the cache
    assert main(["compile", str(SAMPLE), "-o", str(om)]) == 0
    assert capsys.readouterr().out.count("compile cache hit") == 1
    assert main(["compile", str(SAMPLE), "-o", str(om), "--dump", str(tmp_path / "d")]) == 0
    assert "compile cache hit" not in capsys.readouterr().out
    assert [s for _, s in stages(tmp_path / "d", "ge_proto")][-1] == "Build"


def test_dump_ge_graph_alone_dumps_the_compile_and_the_build(tmp_path, monkeypatch):
    monkeypatch.setenv("DUMP_GE_GRAPH", "2")
    monkeypatch.setenv("DUMP_GRAPH_PATH", str(tmp_path))
    monkeypatch.setenv("DUMP_GRAPH_FORMAT", "ge_proto")
    from ge_core.session.graph_manager import GraphManager
    with World().entered():
        manager = GraphManager()
        graph = manager.parse(SAMPLE)
        manager.compile(graph)
        manager.build(graph)
    (directory,) = tmp_path.iterdir()
    assert directory.name == f"pid_{os.getpid()}_deviceid_0"
    names = [s for _, s in stages(directory, "ge_proto")]
    assert names[0] == "PreRunBegin" and names[-1] == "Build"
    assert not list(directory.glob("ge_onnx_*"))
