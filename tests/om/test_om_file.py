"""OM files: save -> load gives the identical task list, graph dump, weights and attrs on the light
models; each kind of damaged file fails its own check, in one line naming the file."""
import hashlib

import pytest
from onnx import helper

from build_testing import LIGHT, LIGHT_MODELS, annotate_build, compiled_light, onnx_graph
from ge_core.compiler import CompileOptions, compile_graph
from ge_core.compiler.task import build_ge_model
from ge_core.graph import dump_graph
from ge_core.graph.dump import Detail
from ge_core.om import OmFileError, load_om, load_om_bytes, om_bytes, save_om
from ge_core.om.model_file_header import UNCHECK, ModelFileHeader
from ge_core.om.om_file import read_om
from ge_core.om.partition_table import ModelPartitionType, pack_partitions
from ge_core.om.proto import ge_ir_pb2
from ge_core.parser import parse_onnx


def assert_same_model(got, want):
    assert got.task_def == want.task_def
    assert dump_graph(got.graph, Detail.FULL) == dump_graph(want.graph, Detail.FULL)
    assert (got.name, got.attrs, got.weights) == (want.name, want.attrs, want.weights)


@pytest.mark.parametrize("model", LIGHT_MODELS)
def test_light_models_come_back_identical(model, tmp_path):
    built = build_ge_model(compiled_light(model), model)
    path = tmp_path / f"{model}.om"
    size = save_om(built, path)
    assert size == path.stat().st_size > len(built.weights)
    assert_same_model(load_om(path), built)


@pytest.fixture(scope="module")
def small_om():
    graph = annotate_build(onnx_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                                      {"x": [4]}, {"y": [4]}))
    return om_bytes(build_ge_model(graph, "small"))


def load_error(data: bytes, tmp_path) -> OmFileError:
    path = tmp_path / "bad.om"
    path.write_bytes(data)
    with pytest.raises(OmFileError) as err:
        load_om(path)
    message = str(err.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    return err.value


def with_body(body: bytes, **header) -> bytes:
    """A file around ``body`` whose header agrees with it (length, checksum)."""
    return ModelFileHeader(checksum=hashlib.sha256(body).hexdigest(), length=len(body),
                           model_length=len(body), **header).pack() + body


def partitions(om: bytes) -> list[tuple[ModelPartitionType, bytes]]:
    checked = read_om(om)
    return [(ModelPartitionType(e.type), bytes(checked.partitions[e.type])) for e in checked.table]


def test_a_file_shorter_than_the_header(small_om, tmp_path):
    err = load_error(small_om[:100], tmp_path)
    assert err.check == "truncated" and "100 bytes, less than the 256-byte OM header" in str(err)


def test_a_truncated_file(small_om, tmp_path):
    err = load_error(small_om[:-10], tmp_path)
    assert err.check == "truncated"
    assert f"says {len(small_om) - 256} bytes follow it, the file has {len(small_om) - 266}" \
        in str(err)


def test_wrong_magic_shows_the_bytes_found(small_om, tmp_path):
    err = load_error(b"\x7fELF" + small_om[4:], tmp_path)
    assert err.check == "magic"
    assert "wrong magic 0x464c457f (bytes 7f 45 4c 46), expected 0x444f4d49" in str(err)


def test_an_unsupported_version(small_om, tmp_path):
    err = load_error(small_om[:8] + (0x10000000).to_bytes(4, "little") + small_om[12:], tmp_path)
    assert err.check == "version" and "unsupported version 0x10000000" in str(err)


def test_bytes_after_the_model(small_om, tmp_path):
    err = load_error(small_om + b"\0", tmp_path)
    assert err.check == "length" and f"but {len(small_om) - 255} bytes follow" in str(err)


def test_a_bad_checksum_shows_both_digests(small_om, tmp_path):
    damaged = bytearray(small_om)
    damaged[-20] ^= 0xFF
    err = load_error(bytes(damaged), tmp_path)
    want = small_om[12:24].decode()
    got = hashlib.sha256(damaged[256:]).hexdigest()[:12]
    assert err.check == "checksum"
    assert f"bad checksum: header says {want}..., the content hashes to {got}..." in str(err)


def test_a_partition_past_the_end(tmp_path):
    body = bytearray(pack_partitions([(ModelPartitionType.MODEL_DEF, b"x" * 8)]))
    body[24:32] = (4096).to_bytes(8, "little")  # entry 0: type, pad, mem_offset, mem_size
    err = load_error(with_body(bytes(body), is_checksum=UNCHECK), tmp_path)
    assert err.check == "truncated" and "partition MODEL_DEF [32, 4128) runs past" in str(err)


@pytest.mark.parametrize("kind", ["MODEL_DEF", "TASK_INFO"])
def test_a_malformed_partition_names_it(small_om, tmp_path, kind):
    parts = [(k, b"\xff\xff\xff" if k.name == kind else data) for k, data in partitions(small_om)]
    err = load_error(with_body(pack_partitions(parts)), tmp_path)
    assert err.check == "partition" and f"malformed partition {kind}: " in str(err)


def test_a_missing_partition(small_om, tmp_path):
    parts = [(k, data) for k, data in partitions(small_om) if k != ModelPartitionType.TASK_INFO]
    err = load_error(with_body(pack_partitions(parts)), tmp_path)
    assert err.check == "partition" and "no TASK_INFO partition" in str(err)


def test_bytes_load_as_the_file_does(small_om):
    model = load_om_bytes(small_om)
    assert model.name == "small" and om_bytes(model) == small_om  # and saving is deterministic


def test_a_model_def_that_decodes_but_does_not_link_is_malformed(small_om, tmp_path):
    parts = partitions(small_om)
    model_def = ge_ir_pb2.ModelDef.FromString(parts[0][1])
    relu = next(op for op in model_def.graph[0].op if op.name == "relu")
    relu.input[0] = "nowhere:0"
    parts[0] = (ModelPartitionType.MODEL_DEF, model_def.SerializeToString())
    err = load_error(with_body(pack_partitions(parts)), tmp_path)
    assert err.check == "partition"
    assert "malformed partition MODEL_DEF: graph g node relu: input 'nowhere:0'" in str(err)



def test_the_same_model_read_from_two_places_makes_the_same_om(tmp_path):
    """Where a model was read from is no part of it: its OM's bytes do not depend on the path
    (a lesson's transcript shows them, in any checkout)."""
    data = (LIGHT / f"light_{LIGHT_MODELS[0]}.onnx").read_bytes()
    oms = []
    for folder in ("a", "a/much/longer/folder/name"):
        path = tmp_path / folder / "model.onnx"
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
        graph = parse_onnx(path)
        compile_graph(graph, CompileOptions(dump=None))
        oms.append(om_bytes(build_ge_model(annotate_build(graph), "model")))
    assert oms[0] == oms[1]
