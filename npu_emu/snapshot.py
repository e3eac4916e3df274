"""Snapshot (aclrtSnapShot*, seed 003 §2.2): save the runtime and device state — memory,
streams with their SQs and positions, in-flight SQEs, events, notifies, models, labels, the
simulated clock — to a file, and restore it into a new runtime that continues exactly as the
saved one would have. Take it between API calls (not from inside a trace observer).

The file carries data only: a numpy ``.npz`` archive (stored, not compressed) of the arrays —
allocated device memory, host buffers, flag tables — and one JSON document of everything else,
versioned, read back field by field against the schema (npu_emu/snapshot_schema.py) and
checked for consistency (npu_emu/snapshot_check.py). Nothing in a file is imported, called or
unpickled, so a crafted snapshot cannot run code; a corrupted or hand-edited one is one
SnapshotError (507909). Host callbacks and registered kernels are code: a snapshot with one
pending cannot be saved (507908). The trace bus, its observers and the race detector belong to
the run, not to the state: a restored runtime emits into the current world's bus.
"""
from __future__ import annotations

import io
import json
import math
import struct
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from npu_emu.runtime import Runtime
from npu_emu.snapshot_check import check_runtime
from npu_emu.snapshot_codec import Decoder, Encoder, SnapshotError, refuse
from npu_emu.snapshot_schema import SCHEMA
from npu_emu.world import current_bus

FORMAT = "npu_emu snapshot"
VERSION = 2   # 1 was a pickle; it is refused
STATE = "state.json"
# How zipfile says an archive is damaged: its own error, an unsupported feature (a flipped flag
# bit asks for encryption or a compression method), a short read, a field that does not unpack.
_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError,
               OSError, EOFError, ValueError, struct.error)
_HEADER_READERS = {(1, 0): np.lib.format.read_array_header_1_0,
                   (2, 0): np.lib.format.read_array_header_2_0}


def save(rt: Runtime, path: str | Path) -> None:
    encoder = Encoder(SCHEMA)
    root = encoder.encode(rt)
    document = {"format": FORMAT, "version": VERSION, "root": root, "objects": encoder.objects}
    state = json.dumps(document, separators=(",", ":")).encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(STATE, state)
        for key, array in encoder.arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, array, allow_pickle=False)
            archive.writestr(f"{key}.npy", buf.getvalue())


def restore(path: str | Path) -> Runtime:
    try:
        archive = zipfile.ZipFile(path)
    except _ZIP_ERRORS as exc:
        raise refuse(f"{path}: {exc}") from None
    with archive:
        members = {info.filename: info for info in archive.infolist()}
        document = _document(archive, members)
        decoder = Decoder(SCHEMA, document["objects"],
                          lambda key: _array(archive, members, key))
        decoder.fill()
    root = document["root"]
    rt = decoder.ref(root, (Runtime,)) if isinstance(root, int) else None
    if rt is None:
        raise refuse("the root is not a runtime")
    try:
        check_runtime(rt)
    except SnapshotError as exc:
        raise refuse(str(exc)) from None
    rt.attach_bus(current_bus())
    return rt


def _read(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    # A stored member is no larger than the archive: a size claimed past it is a lie, and
    # nothing is decompressed, so no small file can expand into a huge one.
    if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
        raise refuse(f"member {info.filename} is compressed")
    try:
        return archive.read(info)
    except _ZIP_ERRORS as exc:
        raise refuse(f"member {info.filename}: {exc}") from None


def _document(archive: zipfile.ZipFile, members: dict[str, zipfile.ZipInfo]) -> dict[str, Any]:
    if STATE not in members:
        raise refuse(f"no {STATE}")
    try:
        document = json.loads(_read(archive, members[STATE]))
    except (ValueError, RecursionError) as exc:
        raise refuse(f"{STATE}: {exc}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise refuse(f"{STATE} is not an {FORMAT}")
    if document.get("version") != VERSION:
        raise refuse(f"version {document.get('version')!r}; this runtime reads version "
                     f"{VERSION}")
    if set(document) != {"format", "version", "root", "objects"}:
        raise refuse(f"{STATE} has the fields {sorted(document)}")
    return document


def _array(archive: zipfile.ZipFile, members: dict[str, zipfile.ZipInfo], key: str) -> np.ndarray:
    """A numeric array, from its .npy header and bytes; the header's shape must account for the
    bytes exactly before anything is allocated."""
    info = members.get(f"{key}.npy")
    if info is None:
        raise SnapshotError(f"no array {key!r}")
    f = io.BytesIO(_read(archive, info))
    try:
        version = np.lib.format.read_magic(f)
        read_header = _HEADER_READERS.get(version)
        if read_header is None:
            raise ValueError(f"npy format {version}")
        shape, fortran, dtype = read_header(f)
    except (ValueError, SyntaxError, TypeError) as exc:
        raise SnapshotError(f"array {key}: {exc}") from None
    data = f.read()
    if dtype.hasobject or dtype.kind not in "biufc" or min(shape, default=0) < 0 or \
            math.prod(shape) * dtype.itemsize != len(data):
        raise SnapshotError(f"array {key}: {dtype} {list(shape)} does not fit its "
                            f"{len(data)} bytes")
    return np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C").copy()
