"""What ``gewb om-info MODEL.om [--json]`` prints, as ATC's --mode=1 shows an OM: the header's
fields, the partitions, the resources the loader will make (streams, events, notifies, labels,
memory) and each stream's tasks in order, by type name and op."""
from __future__ import annotations

import json as jsonlib
import os
from dataclasses import asdict
from typing import Any

from ge_core.graph.multi_batch_gears import Gears
from ge_core.om.ge_model import GeModel
from ge_core.om.model_file_header import MODEL_FILE_HEAD_LEN
from ge_core.model_task_type import ModelTaskType, task_type_name
from ge_core.om.om_file import ge_model_of, read_om
from ge_core.om.partition_table import ModelPartitionType, partition_name, table_size
from ge_core.om.proto.task_pb2 import TaskDef
from ge_core.stream_label import logical_stream_name
from npu_emu.base.counted import counted


def om_info(path: str | os.PathLike, json: bool = False) -> str:
    source = os.fspath(path)
    with open(source, "rb") as f:
        data = f.read()
    return om_info_of(data, source, json)


def om_info_of(data: bytes, source: str, json: bool = False) -> str:
    """The same for an OM's bytes (a model built in memory, as it would be written)."""
    om = read_om(data, source)
    model = ge_model_of(om, source)
    start = MODEL_FILE_HEAD_LEN + table_size(len(om.table))
    info = {
        "file": {"path": source, "size": len(data)},
        "header": asdict(om.header),
        # offset: where the partition starts in the file; mem_offset: the table's own value,
        # which counts from the end of the table.
        "partitions": [{"type": partition_name(e.type), "offset": start + e.mem_offset,
                        "mem_offset": e.mem_offset, "size": e.mem_size} for e in om.table],
        "model": {"name": model.name, **model.attrs, "head_streams": model.head_streams,
                  **_gears(model),
                  "kernels": bytes(om.partitions.get(ModelPartitionType.TBE_KERNELS, b""))
                  .decode().split()},
        "streams": [{"stream_id": s, "tasks": [_task_info(model, t) for t in tasks]}
                    for s, tasks in model.tasks_by_stream().items()],
    }
    return jsonlib.dumps(info, indent=2) + "\n" if json else _text(info)


def _gears(model: GeModel) -> dict[str, Any]:
    """A multi-batch model's gears: each gear's values of the dynamic dims."""
    gears = Gears.of(model.graph)
    return {} if gears is None else {"gears": [list(g) for g in gears.gears]}


def _task_info(model: GeModel, task: TaskDef) -> dict[str, Any]:
    op = model.op(task.id)
    return {"type": task_type_name(task.type), "op": op.name, "op_type": op.type,
            **_detail(task)}


def _detail(task: TaskDef) -> dict[str, Any]:
    """The one or two numbers that say what the task does beyond its op."""
    if task.HasField("kernel"):
        return {"kernel": task.kernel.kernel_name, "block_dim": task.kernel.block_dim}
    if task.HasField("event_ex"):
        return {"event_id": task.event_id}
    if task.HasField("stream_active"):
        return {"active_stream_id": task.stream_active.active_stream_id}
    if task.HasField("stream_switch"):
        return {"true_stream_id": task.stream_switch.true_stream_id}
    if task.HasField("stream_switch_n"):
        switch = task.stream_switch_n
        values = list(switch.target_value)
        return {"true_stream_id": list(switch.true_stream_id),
                "target_value": [values[i:i + switch.size]
                                 for i in range(0, len(values), switch.size or 1)]}
    if task.HasField("label_set"):
        return {"label_id": task.label_set.label_id}
    if task.HasField("label_goto_ex"):
        return {"label_id": task.label_goto_ex.label_id}
    if task.HasField("label_switch_by_index"):
        return {"label_max": task.label_switch_by_index.label_max}
    if task.type in (ModelTaskType.NOTIFY_RECORD, ModelTaskType.NOTIFY_WAIT):
        return {"notify_id": task.notify_id}
    return {}


def _text(info: dict[str, Any]) -> str:
    f, h, m = info["file"], info["header"], info["model"]
    lines = [f"{f['path']}: {f['size']:,} bytes",
             "header:",
             *(f"  {k:<24}{_hex(k, v)}" for k, v in h.items()),
             "partitions:",
             *(f"  {p['type']:<16}file offset {p['offset']:>12,}  size {p['size']:>12,}"
               for p in info["partitions"]),
             f"model {m['name']}:",
             f"  feature map {m['memory_size']:,} bytes, weights {m['weight_size']:,} bytes",
             f"  streams {m['stream_num']} "
             f"(head {', '.join(map(logical_stream_name, m['head_streams']))}), "
             f"events {m['event_num']}, notifies {m['notify_num']}, labels {m['label_num']}",
             f"  kernels: {', '.join(m['kernels']) or '-'}",
             *([f"  gears: {'; '.join(','.join(map(str, g)) for g in m['gears'])}"]
               if "gears" in m else [])]
    for stream in info["streams"]:
        lines.append(f"stream {logical_stream_name(stream['stream_id'])}: "
                     f"{counted(len(stream['tasks']), 'task')}")
        width = max([14] + [len(t["type"]) + 2 for t in stream["tasks"]])
        for i, task in enumerate(stream["tasks"]):
            extra = " ".join(f"{k}={v}" for k, v in task.items()
                             if k not in ("type", "op", "op_type", "kernel"))
            lines.append(f"  {i:>4}  {task['type']:<{width}}{task['op']} ({task['op_type']})"
                         + (f"  {extra}" if extra else ""))
    return "\n".join(lines) + "\n"


def _hex(key: str, value: Any) -> str:
    return f"{value:#010x}" if key in ("magic", "version") else str(value)
