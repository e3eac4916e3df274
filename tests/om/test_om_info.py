"""om-info: the header, the partitions, the model's resources and each stream's tasks."""
import json

from build_testing import compiled_light
from ge_core.compiler.task import build_ge_model
from ge_core.graph.attr_names import STREAM_ID
from ge_core.om import om_info, save_om


def saved(tmp_path, streams: int = 1):
    graph = compiled_light("squeezenet")
    for k, node in enumerate(n for n in graph.topological_sort()
                             if n.op_desc.get_attr(STREAM_ID) >= 0):
        node.op_desc.set_attr(STREAM_ID, k % streams)
    path = tmp_path / "squeezenet.om"
    save_om(build_ge_model(graph), path)
    return path


def test_text_shows_header_partitions_resources_and_tasks(tmp_path):
    path = saved(tmp_path)
    text = om_info(path)
    for line in ["header:", "  magic                   0x444f4d49", "  headsize                256",
                 "  version                 0x20000000", "  platform_version        npu_emu",
                 "partitions:", "  streams 1 (head s0), events 0, notifies 0, labels 0",
                 "stream s0: 32 tasks", "     0  KERNEL        n1 (FusedConv)  block_dim=1",
                 "    31  END_GRAPH     NetOutput (NetOutput)"]:
        assert line in text.splitlines(), line
    assert f"{path}: {path.stat().st_size:,} bytes" == text.splitlines()[0]
    assert "kernels: FusedConv, GlobalAveragePool, MaxPool, Softmax" in text   # no-task Concats


def test_json_has_the_same_facts_and_partitions_tile_the_file(tmp_path):
    info = json.loads(om_info(saved(tmp_path, streams=2), json=True))
    assert info["header"]["magic"] == 0x444F4D49 and info["header"]["name"] == "squeezenet_old"
    parts = info["partitions"]
    assert [p["type"] for p in parts] == ["MODEL_DEF", "WEIGHTS_DATA", "TASK_INFO", "TBE_KERNELS"]
    assert parts[0]["offset"] == 256 + 8 + 4 * 24
    for a, b in zip(parts, parts[1:]):
        assert a["offset"] + a["size"] == b["offset"]
    assert parts[-1]["offset"] + parts[-1]["size"] == info["file"]["size"]
    model = info["model"]
    assert (model["stream_num"], model["head_streams"]) == (2, [0, 1])
    assert model["weight_size"] == parts[1]["size"]
    tasks = [t for s in info["streams"] for t in s["tasks"]]
    assert len(tasks) == 32 and {s["stream_id"] for s in info["streams"]} == {0, 1}
    assert tasks[0] == {"type": "KERNEL", "op": "n1", "op_type": "FusedConv",
                        "kernel": "FusedConv", "block_dim": 1}
