"""Snapshot (aclrtSnapShot*, seed 003 §2.2): save the runtime and device state — memory,
streams with their SQs and positions, in-flight SQEs, events, notifies, models, labels, the
simulated clock, the handle table — and restore it into a runtime that continues exactly as the
saved one would have. Take it between API calls (not from inside a trace observer).

Two faces. ``save``/``restore`` write and read a file. ``ProcessSnapShot`` is the process-level
flow of the runtime's API (include/external/acl/acl_rt.h):

    backup:  LOCK_PRE -> lock -> BACKUP_PRE -> backup -> BACKUP_POST -> unlock -> UNLOCK_POST
    restore: RESTORE_PRE -> restore -> RESTORE_POST -> unlock -> UNLOCK_POST

with callbacks registered per stage, each called once per device. A backup is kept in the World
(the process); a restore puts the backed-up runtime in the World's place, handles and all, and
leaves the process locked until unlock. The lock orders the flow; it does not stop other calls.

Host callbacks and kernels registered as lambdas cannot be saved: a snapshot with one pending
fails with a clear error. The trace bus, its observers and the race detector belong to the run,
not to the state: a restored runtime emits into the current world's bus.
"""
from __future__ import annotations

import pickle
from enum import IntEnum
from pathlib import Path
from typing import Any, Callable

from npu_emu.errors import (ACL_ERROR_RT_INTERNAL_ERROR, AclError, FeatureNotSupportedError,
                            InvalidParamError)
from npu_emu.runtime import Runtime
from npu_emu.world import World, current_bus

MAGIC = b"NPUEMU-SNAPSHOT-1\n"


def dumps(rt: Runtime) -> bytes:
    try:
        return MAGIC + pickle.dumps(rt, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        raise FeatureNotSupportedError(f"snapshot: the state holds something that cannot be "
                                       f"saved (a host callback or lambda kernel?): {exc}") from exc


def loads(data: bytes, what: str = "the data") -> Runtime:
    if not data.startswith(MAGIC):
        raise FeatureNotSupportedError(f"{what} is not an npu_emu snapshot")
    rt = pickle.loads(data[len(MAGIC):])
    rt.attach_bus(current_bus())
    if rt.config.race_check:
        rt.enable_race_check()
    return rt


def save(rt: Runtime, path: str | Path) -> None:
    Path(path).write_bytes(dumps(rt))


def restore(path: str | Path) -> Runtime:
    return loads(Path(path).read_bytes(), str(path))


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
        """The last backup in the World's place; the process stays locked until unlock."""
        if self.backup_data is None:
            raise InvalidParamError("snapshot: no backup to restore from")
        self._call(SnapShotStage.RESTORE_PRE, world.runtime)
        world.runtime = loads(self.backup_data, "the backup")
        self.locked = True
        self._call(SnapShotStage.RESTORE_POST, world.runtime)
        return world.runtime
