"""The OM file (GE's OmFileSaveHelper / OmFileLoadHelper + ModelHelper):

    ModelFileHeader (256 bytes) | partition table
    | MODEL_DEF | WEIGHTS_DATA | TASK_INFO | TBE_KERNELS

MODEL_DEF is the graph as a ge.proto.ModelDef (weights detached into WEIGHTS_DATA), TASK_INFO the
domi.ModelTaskDef, TBE_KERNELS the kernel names one a line (our kernels are the numpy ones,
found by name; GE's holds their binaries). The header's checksum is ours: the SHA-256 hex digest
of everything after the header. Loading checks, in order, each failing with one line that names
the file and the check: size, magic, header size, version, length, checksum, partition table,
partition bounds, and each partition's decoding.
"""
from __future__ import annotations

import hashlib
import os
import struct
from dataclasses import dataclass

from google.protobuf.message import DecodeError

from ge_core.graph import GraphError
from ge_core.om.ge_model import GeModel
from ge_core.om.model_file_header import (CHECK, MODEL_FILE_HEAD_LEN, MODEL_FILE_MAGIC_NUM,
                                          MODEL_VERSION, ModelFileHeader)
from ge_core.om.model_serializer import graph_of, model_def
from ge_core.om.om_limits import (MAX_PARTITION_NUM, OmLimitError, check_descs, check_io,
                                  check_model_attrs, check_task_def)
from ge_core.om.partition_table import (ModelPartitionMemInfo, ModelPartitionType,
                                        pack_partitions, partition_name, table_size,
                                        unpack_table)
from ge_core.om.proto import ge_ir_pb2, task_pb2
from ge_core.om.tensor_serializer import SerializeError
from ge_core.om.weights import Weights

P = ModelPartitionType


class OmFileError(Exception):
    """An OM file that cannot be loaded. ``check`` names the check that failed: truncated,
    magic, header, version, length, checksum or partition."""

    def __init__(self, source: str, check: str, reason: str) -> None:
        self.source, self.check, self.reason = source, check, reason
        super().__init__(f"{source}: {reason}")


@dataclass
class OmFile:
    """An OM file's parts once its layout checks have passed."""
    header: ModelFileHeader
    table: list[ModelPartitionMemInfo]
    partitions: dict[int, memoryview]


# -- save ----------------------------------------------------------------------------------------
def om_bytes(model: GeModel) -> bytes:
    graph = model_def(model.graph, model.name, model.attrs, detach_weights=True)
    body = pack_partitions([
        (P.MODEL_DEF, graph.SerializeToString(deterministic=True)),
        (P.WEIGHTS_DATA, model.weights.buffers()),
        (P.TASK_INFO, model.task_def.SerializeToString(deterministic=True)),
        (P.TBE_KERNELS, "".join(f"{k}\n" for k in model.kernel_names).encode()),
    ])
    header = ModelFileHeader(checksum=_checksum(body), length=len(body), name=model.name,
                             model_length=len(body))
    return header.pack() + body


def save_om(model: GeModel, path: str | os.PathLike) -> int:
    """Write ``model`` as an OM file; returns its size in bytes."""
    data = om_bytes(model)
    with open(path, "wb") as f:
        f.write(data)
    return len(data)


def _checksum(body: bytes | memoryview) -> str:
    return hashlib.sha256(body).hexdigest()


# -- load ----------------------------------------------------------------------------------------
def load_om(path: str | os.PathLike) -> GeModel:
    with open(path, "rb") as f:
        return load_om_bytes(f.read(), os.fspath(path))


def load_om_bytes(data: bytes, source: str = "<om bytes>") -> GeModel:
    return ge_model_of(read_om(data, source), source)


def read_om(data: bytes, source: str = "<om bytes>") -> OmFile:
    """Check the layout and split ``data`` into its partitions (not yet decoded)."""
    def fail(check: str, reason: str) -> OmFileError:
        return OmFileError(source, check, reason)

    if len(data) < MODEL_FILE_HEAD_LEN:
        raise fail("truncated", f"file too short: {len(data)} bytes, less than the "
                                f"{MODEL_FILE_HEAD_LEN}-byte OM header")
    header = ModelFileHeader.unpack(data)
    if header.magic != MODEL_FILE_MAGIC_NUM:
        raise fail("magic", f"wrong magic {header.magic:#010x} (bytes {header.magic_bytes.hex(' ')}"
                            f"), expected {MODEL_FILE_MAGIC_NUM:#010x}: not an OM file")
    if header.headsize != MODEL_FILE_HEAD_LEN:
        raise fail("header", f"header size {header.headsize}, expected {MODEL_FILE_HEAD_LEN}")
    if header.version != MODEL_VERSION:
        raise fail("version", f"unsupported version {header.version:#010x}, expected "
                              f"{MODEL_VERSION:#010x}")
    body = memoryview(data)[MODEL_FILE_HEAD_LEN:]
    if len(body) < header.model_length:
        raise fail("truncated", f"truncated: the header says {header.model_length} bytes follow "
                                f"it, the file has {len(body)}")
    if header.length != header.model_length or len(body) != header.model_length:
        raise fail("length", f"header length {header.length} (u64 {header.model_length}) but "
                             f"{len(body)} bytes follow the header")
    if header.is_checksum == CHECK and _checksum(body) != header.checksum:
        raise fail("checksum", f"bad checksum: header says {header.checksum[:12]}..., the "
                               f"content hashes to {_checksum(body)[:12]}...")
    (num,) = struct.unpack_from("<I", body) if len(body) >= 4 else (0,)
    if not 1 <= num <= MAX_PARTITION_NUM:
        raise fail("partition", f"partition table of {num} partitions: GE accepts 1 to "
                                f"{MAX_PARTITION_NUM}")
    try:
        table = unpack_table(body, 0)
    except struct.error as err:
        raise fail("truncated", f"truncated partition table: {err}") from None
    start, partitions = table_size(len(table)), {}
    for entry in table:
        begin, end = start + entry.mem_offset, start + entry.mem_offset + entry.mem_size
        if end > len(body):
            raise fail("truncated", f"partition {partition_name(entry.type)} [{begin}, {end}) "
                                    f"runs past the end ({len(body)} bytes after the header)")
        partitions[entry.type] = body[begin:end]
    return OmFile(header, table, partitions)


def ge_model_of(om: OmFile, source: str = "<om bytes>") -> GeModel:
    """Decode the partitions of a checked OM file into a GeModel, every field held against the
    file and GE's limits (om_limits.py) before anything is made from it."""
    def partition(kind: ModelPartitionType) -> memoryview:
        if kind not in om.partitions:
            raise OmFileError(source, "partition", f"no {kind.name} partition")
        return om.partitions[kind]

    def malformed(kind: ModelPartitionType, err: Exception) -> OmFileError:
        return OmFileError(source, "partition", f"malformed partition {kind.name}: {err}")

    weights = bytes(partition(P.WEIGHTS_DATA))
    try:
        task_def = task_pb2.ModelTaskDef.FromString(partition(P.TASK_INFO))
        check_task_def(task_def, len(weights))
    except DecodeError as err:
        raise malformed(P.TASK_INFO, _decode_reason(err)) from None
    except OmLimitError as err:
        raise malformed(P.TASK_INFO, err) from None
    try:
        graph_proto = ge_ir_pb2.ModelDef.FromString(partition(P.MODEL_DEF))
        attrs = check_model_attrs(graph_proto, task_def)
        graph = graph_of(graph_proto, weights)
        check_io(graph, task_def.memory_size, len(weights))
        check_descs(graph)
    except DecodeError as err:
        raise malformed(P.MODEL_DEF, _decode_reason(err)) from None
    except (SerializeError, GraphError, OmLimitError) as err:
        raise malformed(P.MODEL_DEF, err) from None
    try:
        bytes(om.partitions.get(P.TBE_KERNELS, b"")).decode()
    except UnicodeDecodeError as err:
        raise malformed(P.TBE_KERNELS, f"kernel names are not UTF-8 (byte {err.start})") from None
    return GeModel(graph_proto.name, graph, task_def, Weights.of(weights), attrs)


def _decode_reason(err: DecodeError) -> str:
    """protobuf's reason, without its exception class."""
    return f"its protobuf does not decode ({str(err).rsplit(': ', 1)[-1]})"
