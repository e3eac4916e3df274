"""The generated protobuf modules are what scripts/gen_proto.py makes from the .proto files now,
and the schema keeps GE's field numbers."""
import subprocess
import sys
from pathlib import Path

import pytest

from ge_core.om.proto import ge_ir_pb2, task_pb2

ROOT = Path(__file__).resolve().parents[2]
PROTO_DIR = ROOT / "ge_core" / "om" / "proto"


def test_checked_in_pb2_modules_are_not_stale(tmp_path):
    pytest.importorskip("grpc_tools", reason="protoc comes from grpcio-tools (the test extra)")
    subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_proto.py"), "--out",
                    str(tmp_path)], check=True, capture_output=True)
    for name in ("ge_ir_pb2.py", "task_pb2.py"):
        assert (tmp_path / name).read_text() == (PROTO_DIR / name).read_text(), \
            f"{name} is stale: run python scripts/gen_proto.py"


def numbers(message) -> dict[str, int]:
    return {f.name: f.number for f in message.DESCRIPTOR.fields}


def test_field_numbers_are_ges():
    assert numbers(task_pb2.ModelTaskDef) == {
        "version": 1, "attr": 9, "task": 10, "memory_size": 11, "stream_num": 12,
        "event_num": 13, "weight_size": 14, "op": 15, "base_addr": 16, "weight_addr": 17,
        "batch_num": 18}
    task = numbers(task_pb2.TaskDef)
    assert {k: task[k] for k in ("id", "type", "stream_id", "event_id", "notify_id", "kernel",
                                 "kernel_ex", "kernel_hccl", "event_ex", "label_id",
                                 "memcpy_async", "stream_switch", "stream_active", "label_set",
                                 "label_goto_ex", "label_switch_by_index")} == {
        "id": 1, "type": 2, "stream_id": 10, "event_id": 11, "notify_id": 12, "kernel": 20,
        "kernel_ex": 21, "kernel_hccl": 25, "event_ex": 26, "label_id": 30, "memcpy_async": 31,
        "stream_switch": 32, "stream_active": 33, "label_set": 37, "label_goto_ex": 38,
        "label_switch_by_index": 39}
    op = numbers(ge_ir_pb2.OpDef)
    assert {k: op[k] for k in ("name", "type", "input", "attr", "id", "stream_id", "input_i",
                               "output_i", "workspace", "workspace_bytes", "input_desc",
                               "output_desc", "subgraph_name")} == {
        "name": 1, "type": 2, "input": 5, "attr": 10, "id": 21, "stream_id": 22, "input_i": 28,
        "output_i": 29, "workspace": 30, "workspace_bytes": 31, "input_desc": 33,
        "output_desc": 34, "subgraph_name": 35}
    attr = numbers(ge_ir_pb2.AttrDef)
    assert {k: attr[k] for k in ("list", "s", "i", "f", "b", "t", "dt")} == {
        "list": 1, "s": 2, "i": 3, "f": 4, "b": 5, "t": 12, "dt": 15}
    assert numbers(ge_ir_pb2.ModelDef) == {"name": 1, "version": 2, "custom_version": 3,
                                           "graph": 7, "attr": 11}


@pytest.mark.parametrize("first", ["ge_core.compiler.task", "ge_core.om"])
def test_either_package_imports_first(first):
    # ge_core.compiler.task builds on ge_core.om and not the other way round.
    subprocess.run([sys.executable, "-c", f"import {first}; import ge_core.om, "
                    "ge_core.compiler.task"], check=True, cwd=ROOT)
