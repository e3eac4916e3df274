"""Snapshot (aclrtSnapShot*, seed 003 §2.2): save the runtime and device state — memory,
streams with their SQs and positions, in-flight SQEs, events, notifies, models, labels, the
simulated clock — to a file, and restore it into a new runtime that continues exactly as the
saved one would have. Take it between API calls (not from inside a trace observer).

Two faces. ``save``/``restore`` write and read a file (``dumps``/``loads``: the same bytes in
memory). ``ProcessSnapShot`` is the process-level flow of the runtime's API
(include/external/acl/acl_rt.h):

    backup:  LOCK_PRE -> lock -> BACKUP_PRE -> backup -> BACKUP_POST -> unlock -> UNLOCK_POST
    restore: RESTORE_PRE -> restore -> RESTORE_POST -> unlock -> UNLOCK_POST

with callbacks registered per stage, each called once per device. A backup is kept in the World
(the process); a restore puts the backed-up runtime in the World's place, handles and all, and
leaves the process locked until unlock. The lock orders the flow; it does not stop other calls.

The file carries data only: a numpy ``.npz`` archive (stored, not compressed) of the arrays —
allocated device memory, host buffers, flag tables — and one JSON document of everything else,
versioned, read back field by field against the schema (npu_emu/snapshot/schema.py) and
checked for consistency (npu_emu/snapshot/check.py). Nothing in a file is imported, called or
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
from enum import IntEnum
from pathlib import Path
from typing import IO, Any, Callable

import numpy as np

from npu_emu.base.errors import ACL_ERROR_RT_INTERNAL_ERROR, AclError, InvalidParamError
from npu_emu.runtime import Runtime
from npu_emu.snapshot.check import check_runtime
from npu_emu.snapshot.codec import Decoder, Encoder, SnapshotError, refuse
from npu_emu.snapshot.schema import SCHEMA
from npu_emu.world import World, current_bus

FORMAT = "npu_emu snapshot"
VERSION = 2   # 1 was a pickle; it is refused
STATE = "state.json"
# How zipfile says an archive is damaged: its own error, an unsupported feature (a flipped flag
# bit asks for encryption or a compression method), a short read, a field that does not unpack.
_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError,
               OSError, EOFError, ValueError, struct.error)
_CHUNK = 16 << 20
# Members carry no wall-clock time: the same runtime saves to the same bytes.
_EPOCH = (1980, 1, 1, 0, 0, 0)
_HEADER_READERS = {(1, 0): np.lib.format.read_array_header_1_0,
                   (2, 0): np.lib.format.read_array_header_2_0}


def save(rt: Runtime, path: str | Path | IO[bytes]) -> None:
    encoder = Encoder(SCHEMA)
    root = encoder.encode(rt)
    document = {"format": FORMAT, "version": VERSION, "root": root, "objects": encoder.objects}
    state = json.dumps(document, separators=(",", ":")).encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(zipfile.ZipInfo(STATE, _EPOCH), state)
        for key, array in encoder.arrays.items():
            # straight into the archive: a copy of each array (host buffers of gigabytes)
            # would take as much memory again
            big = array.nbytes + 4096 >= zipfile.ZIP64_LIMIT
            with archive.open(zipfile.ZipInfo(f"{key}.npy", _EPOCH), "w",
                              force_zip64=big) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)


def dumps(rt: Runtime) -> bytes:
    buf = io.BytesIO()
    save(rt, buf)
    return buf.getvalue()


def loads(data: bytes) -> Runtime:
    return restore(io.BytesIO(data), "the backup")


def restore(path: str | Path | IO[bytes], what: str | None = None) -> Runtime:
    try:
        archive = zipfile.ZipFile(path)
    except _ZIP_ERRORS as exc:
        raise refuse(f"{what or path}: {exc}") from None
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


def _check_stored(info: zipfile.ZipInfo) -> None:
    # A stored member is no larger than the archive: a size claimed past it is a lie, and
    # nothing is decompressed, so no small file can expand into a huge one.
    if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
        raise refuse(f"member {info.filename} is compressed")


def _read(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    _check_stored(info)
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
    bytes exactly before anything is allocated, and the bytes are read into the array itself
    (one copy of a host buffer of gigabytes, not three)."""
    info = members.get(f"{key}.npy")
    if info is None:
        raise SnapshotError(f"no array {key!r}")
    _check_stored(info)
    try:
        with archive.open(info) as f:
            try:
                version = np.lib.format.read_magic(f)
                read_header = _HEADER_READERS.get(version)
                if read_header is None:
                    raise ValueError(f"npy format {version}")
                shape, fortran, dtype = read_header(f)
            except (ValueError, SyntaxError, TypeError) as exc:
                raise SnapshotError(f"array {key}: {exc}") from None
            size = info.file_size - f.tell()
            if dtype.hasobject or dtype.kind not in "biufc" or min(shape, default=0) < 0 or \
                    math.prod(shape) * dtype.itemsize != size:
                raise SnapshotError(f"array {key}: {dtype} {list(shape)} does not fit its "
                                    f"{size} bytes")
            array = np.empty(shape, dtype, order="F" if fortran else "C")
            view = memoryview(array.reshape(-1, order="A")).cast("B")
            done = 0
            while done < size:   # in chunks: zipfile reads a whole request into bytes first
                n = f.readinto(view[done:done + _CHUNK])
                if not n:
                    raise SnapshotError(f"array {key}: {size - done} of its bytes missing")
                done += n
    except _ZIP_ERRORS as exc:   # a bad CRC is found once the member is read
        raise refuse(f"member {info.filename}: {exc}") from None
    return array


class SnapShotStage(IntEnum):
    """aclrtSnapShotStage."""
    LOCK_PRE = 0
    BACKUP_PRE = 1
    BACKUP_POST = 2
    RESTORE_PRE = 3
    RESTORE_POST = 4
    UNLOCK_POST = 5


SnapShotCallback = Callable[[int, Any], int]   # (device id, user args) -> 0 or an error


class ProcessSnapShot:
    """The process's snapshot state: one per World (``World.instance``)."""

    def __init__(self) -> None:
        self.locked = False
        self.backup_data: bytes | None = None
        self.callbacks: dict[SnapShotStage, list[tuple[SnapShotCallback, Any]]] = {}

    def register(self, stage: int, callback: SnapShotCallback, args: Any = None) -> None:
        entries = self.callbacks.setdefault(SnapShotStage(stage), [])
        if any(fn is callback for fn, _ in entries):
            raise InvalidParamError(f"callback already registered for {SnapShotStage(stage).name}")
        entries.append((callback, args))

    def unregister(self, stage: int, callback: SnapShotCallback) -> None:
        entries = self.callbacks.get(SnapShotStage(stage), [])
        kept = [(fn, a) for fn, a in entries if fn is not callback]
        if len(kept) == len(entries):
            raise InvalidParamError(f"callback not registered for {SnapShotStage(stage).name}")
        self.callbacks[SnapShotStage(stage)] = kept

    def _call(self, stage: SnapShotStage, rt: Runtime) -> None:
        for fn, args in list(self.callbacks.get(stage, [])):
            for device_id in sorted(rt.devices):
                ret = fn(device_id, args)
                if ret:
                    raise AclError(f"snapshot {stage.name} callback returned {ret} on device "
                                   f"{device_id}", ACL_ERROR_RT_INTERNAL_ERROR)

    def lock(self, world: World) -> None:
        if self.locked:
            raise InvalidParamError("snapshot: the process is already locked")
        self._call(SnapShotStage.LOCK_PRE, world.runtime)
        self.locked = True

    def unlock(self, world: World) -> None:
        if not self.locked:
            raise InvalidParamError("snapshot: the process is not locked")
        self.locked = False
        self._call(SnapShotStage.UNLOCK_POST, world.runtime)

    def backup(self, world: World) -> None:
        if not self.locked:
            raise InvalidParamError("snapshot: lock the process before a backup")
        self._call(SnapShotStage.BACKUP_PRE, world.runtime)
        self.backup_data = dumps(world.runtime)
        self._call(SnapShotStage.BACKUP_POST, world.runtime)

    def restore(self, world: World) -> Runtime:
        """The last backup in the World's place; the process stays locked until unlock. The
        runtime it replaces is read no more, and lets go of its device memory at once."""
        if self.backup_data is None:
            raise InvalidParamError("snapshot: no backup to restore from")
        self._call(SnapShotStage.RESTORE_PRE, world.runtime)
        replaced, world.runtime = world.runtime, loads(self.backup_data)
        replaced.release_memory()
        self.locked = True
        self._call(SnapShotStage.RESTORE_POST, world.runtime)
        return world.runtime
