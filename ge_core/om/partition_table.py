"""The partition table that follows the header: ``{u32 num; ModelPartitionMemInfo[num]}`` with
``ModelPartitionMemInfo = {ModelPartitionType type; u64 mem_offset; u64 mem_size}``.

GE writes the table by copying the C structs, so it carries their natural alignment: the u64s
put 4 padding bytes after ``type`` (24 bytes an entry) and the flexible array after ``num``
(8 bytes of head). Offsets count from the end of the table; partitions follow back to back.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum

from ge_core.model_task_type import enum_name


class ModelPartitionType(IntEnum):
    MODEL_DEF = 0
    WEIGHTS_DATA = 1
    TASK_INFO = 2
    TBE_KERNELS = 3
    CUST_AICPU_KERNELS = 4
    SO_BINS = 5
    FLOW_MODEL = 6
    FLOW_SUBMODEL = 7
    MODEL_INOUT_INFO = 8
    STATIC_TASK_DESC = 9
    DYNAMIC_TASK_DESC = 10
    TASK_PARAM = 11
    TILING_DATA = 12
    PRE_MODEL_DESC = 20
    PRE_MODEL_SQE = 21
    PRE_KERNEL_ARGS = 22
    PRE_MODEL_DESC_EXTEND = 23
    BUNDLE_MODEL_INFO = 24
    BUNDLE_MODEL_VAR_INFO = 25
    CUSTOM_OPS = 26


def partition_name(value: int) -> str:
    return enum_name(ModelPartitionType, value, lambda v: f"type {v}")


_HEAD = struct.Struct("<I4x")      # num, then padding to the entries' 8-byte alignment
_ENTRY = struct.Struct("<I4xQQ")   # type, padding, mem_offset, mem_size


@dataclass(frozen=True)
class ModelPartitionMemInfo:
    type: int
    mem_offset: int
    mem_size: int


def table_size(num: int) -> int:
    """GE's SizeOfModelPartitionTable."""
    return _HEAD.size + num * _ENTRY.size


def pack_partitions(partitions: list[tuple[ModelPartitionType, bytes | list[bytes | memoryview]]]
                    ) -> bytes:
    """The table followed by the partitions' bytes, joined once: each partition's bytes, or
    its consecutive parts (a weight buffer's pieces and gaps: see om/weights.py)."""
    parts = [(kind, data if isinstance(data, list) else [data]) for kind, data in partitions]
    table, offset = [_HEAD.pack(len(parts))], 0
    for kind, pieces in parts:
        size = sum(map(len, pieces))
        table.append(_ENTRY.pack(kind, offset, size))
        offset += size
    return b"".join(table + [piece for _, pieces in parts for piece in pieces])


def unpack_table(data: bytes | memoryview, at: int) -> list[ModelPartitionMemInfo]:
    """The entries of the table at ``at``; the caller checks they fit (struct.error if the
    table itself does not)."""
    (num,) = _HEAD.unpack_from(data, at)
    if at + table_size(num) > len(data):
        raise struct.error(f"a table of {num} partitions needs {table_size(num)} bytes, "
                           f"{len(data) - at} are left")
    return [ModelPartitionMemInfo(*_ENTRY.unpack_from(data, at + table_size(i)))
            for i in range(num)]
