"""What device memory tells the trace bus: allocations, frees and the host's own accesses.
Cheap to import, so an observer (the race detector, the memory pane) can name them."""
from __future__ import annotations

from dataclasses import dataclass

from npu_emu.base.trace import TraceEvent


@dataclass(frozen=True, slots=True)
class MemAlloc(TraceEvent):
    device_id: int
    addr: int
    size: int


@dataclass(frozen=True, slots=True)
class MemFree(TraceEvent):
    device_id: int
    addr: int
    size: int


@dataclass(frozen=True, slots=True)
class HostMemAccess(TraceEvent):
    """The host itself touched device memory (a synchronous memcpy or memset)."""

    addr: int
    nbytes: int
    write: bool
