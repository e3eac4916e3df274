"""Snapshot (aclrtSnapShot*, seed 003 §2.2): save the runtime and device state — memory,
streams with their SQs and positions, in-flight SQEs, events, notifies, models, labels, the
simulated clock — to a file, and restore it into a new runtime that continues exactly as the
saved one would have. Take it between API calls (not from inside a trace observer).

Host callbacks and kernels registered as lambdas cannot be saved: a snapshot with one pending
fails with a clear error. The trace bus, its observers and the race detector belong to the run,
not to the state: a restored runtime emits into the current world's bus.
"""
from __future__ import annotations

import pickle
from pathlib import Path

from npu_emu.errors import FeatureNotSupportedError
from npu_emu.runtime import Runtime
from npu_emu.world import current_bus

MAGIC = b"NPUEMU-SNAPSHOT-1\n"


def save(rt: Runtime, path: str | Path) -> None:
    try:
        data = pickle.dumps(rt, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        raise FeatureNotSupportedError(f"snapshot: the state holds something that cannot be "
                                       f"saved (a host callback or lambda kernel?): {exc}") from exc
    Path(path).write_bytes(MAGIC + data)


def restore(path: str | Path) -> Runtime:
    data = Path(path).read_bytes()
    if not data.startswith(MAGIC):
        raise FeatureNotSupportedError(f"{path} is not an npu_emu snapshot")
    rt = pickle.loads(data[len(MAGIC):])
    rt.attach_bus(current_bus())
    if rt.config.race_check:
        rt.enable_race_check()
    return rt
