"""Corrupted OM files -> `gewb om-info`, `om-info --json`, `gewb exec`. Most mutations keep the
checksum right (it is recomputed), so they reach the partition decoding and the loader: a
header field, a partition table entry, one field anywhere in the ModelDef or ModelTaskDef
protobufs, a string that is not UTF-8, or raw flipped / cut bytes."""
from __future__ import annotations

import hashlib
import struct
from pathlib import Path

import onnx
from hypothesis import strategies as st
from onnx import TensorProto, helper

from fuzzing.onnx_mutations import ROOT
from fuzzing.proto_mutations import INTS, break_utf8, mutate_message
from fuzzing.targets import Target
from fuzzing.verdict import Verdict, judge_cli, worst

# The header fields a corrupted file may get wrong, with their widths in bits.
HEADER_FIELDS = {"magic": 32, "headsize": 32, "version": 32, "length": 32, "is_encrypt": 8,
                 "is_checksum": 8, "modeltype": 8, "ops": 32, "om_ir_version": 32,
                 "model_num": 32, "model_length": 64, "is_unknow_model": 8}
KINDS = ("header", "table", "model_def", "task_def", "utf8_model_def", "utf8_task_def",
         "weights", "kernels", "flip", "truncate")


def _if_model() -> onnx.ModelProto:
    """y = x + 1 if cond else x * 2: an If, so label tasks reach the OM."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    c = helper.make_tensor_value_info("cond", TensorProto.BOOL, [])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    one = helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])

    def branch(name: str, op: str) -> onnx.GraphProto:
        out = helper.make_tensor_value_info(f"{name}_out", TensorProto.FLOAT, [2])
        return helper.make_graph([helper.make_node(op, ["x", "one"], [f"{name}_out"])], name,
                                 [], [out])
    node = helper.make_node("If", ["cond"], ["y"], then_branch=branch("then", "Add"),
                            else_branch=branch("else", "Mul"))
    graph = helper.make_graph([node], "if_model", [x, c], [y], initializer=[one])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def cases() -> st.SearchStrategy:
    return st.tuples(st.integers(0, 1), st.sampled_from(KINDS),
                     st.lists(st.tuples(st.integers(0, 1 << 16), st.integers(0, 1 << 16)),
                              min_size=1, max_size=3))


def setup(workdir: str) -> list[bytes]:
    from ge_core.atc import atc
    from ge_core.compiler import CompileOptions
    from ge_core.compiler.model_builder import BuildOptions
    from ge_core.om import om_bytes
    from ge_core.parser import parse_onnx
    if_path = Path(workdir) / "if_model.onnx"
    onnx.save(_if_model(), str(if_path))
    seeds = []
    for path in (ROOT / "sample_models" / "tiny_cnn.onnx", if_path):
        built = atc(parse_onnx(str(path)), CompileOptions(dump=None), BuildOptions()).built
        seeds.append(om_bytes(built.ge_model))
    return seeds


def _repack(header, parts: list[tuple[int, bytes]], fix_checksum: bool = True) -> bytes:
    from ge_core.om.partition_table import pack_partitions
    body = pack_partitions(parts)
    header.length = header.model_length = len(body)
    if fix_checksum:
        header.checksum = hashlib.sha256(body).hexdigest()
    return header.pack() + body


def corrupt(data: bytes, kind: str, edits: list[tuple[int, int]]) -> bytes:
    from ge_core.om.model_file_header import MODEL_FILE_HEAD_LEN
    from ge_core.om.om_file import read_om
    from ge_core.om.partition_table import ModelPartitionType as P
    from ge_core.om.proto import ge_ir_pb2, task_pb2
    om = read_om(data)
    parts = {t: bytes(v) for t, v in om.partitions.items()}
    for which, pick in edits:
        if kind == "header":
            field = sorted(HEADER_FIELDS)[which % len(HEADER_FIELDS)]
            setattr(om.header, field, INTS[pick % len(INTS)] % (1 << HEADER_FIELDS[field]))
            data = om.header.pack() + data[MODEL_FILE_HEAD_LEN:]
            continue
        if kind == "table":
            table = bytearray(data[MODEL_FILE_HEAD_LEN:])
            at = 8 + 24 * (which % 4) + (0, 8, 16)[pick % 3]
            if at + 8 <= len(table):
                struct.pack_into("<Q", table, at, INTS[pick % len(INTS)] % (1 << 64))
            data = data[:MODEL_FILE_HEAD_LEN] + bytes(table)
            continue
        if kind in ("flip", "truncate"):
            if not data:
                break
            i = which % len(data)
            data = data[:i] + bytes([(data[i] ^ (1 + pick % 255))]) + data[i + 1:] \
                if kind == "flip" else data[:i]
            continue
        target = P.MODEL_DEF if "model_def" in kind else P.TASK_INFO
        if kind in ("weights", "kernels"):
            target = P.WEIGHTS_DATA if kind == "weights" else P.TBE_KERNELS
            raw = parts[target]
            parts[target] = raw[: which % (len(raw) + 1)] + (b"\xff\n" if pick % 2 else b"")
            continue
        cls = ge_ir_pb2.ModelDef if target == P.MODEL_DEF else task_pb2.ModelTaskDef
        msg = cls.FromString(parts[target])
        if kind.startswith("utf8"):   # last: the partition no longer decodes
            parts[target] = break_utf8(parts[target], msg, which)
            break
        mutate_message(msg, which, pick)
        parts[target] = msg.SerializeToString()
    if kind in ("header", "table", "flip", "truncate"):
        return data
    return _repack(om.header, sorted(parts.items()))


def run(case: tuple, seeds: list[bytes]) -> Verdict:
    seed, kind, edits = case
    path = Path("case.om")
    path.write_bytes(corrupt(seeds[seed], kind, edits))
    return worst([judge_cli(["om-info", str(path)]), judge_cli(["om-info", str(path), "--json"]),
                  judge_cli(["exec", str(path)])])


TARGET = Target("om", cases, setup, run)
