"""CachingMemAllocator: the device memory v2's AllocMemory / FreeMemory nodes use for tensors
(GE v2's caching allocator, one per executor, made by Init and released by DeInit).

The host runs ahead of the device: FreeMemory runs when the last kernel reading a tensor has
been *launched*, long before it has run. Handing that block to the next AllocMemory is safe only
if the next writer runs after the reader, which stream order guarantees on the same stream and
nothing guarantees across streams. So a freed block goes to the free list of the stream it was
freed on and is reused only by allocations for that stream; once the host has synchronized
every stream, all of them are idle and any allocation (or a host write) may take them. Blocks
are bucketed by npu_emu's pool size class, and only go back to the device at release.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from npu_emu.driver.memory import size_class

if TYPE_CHECKING:
    from npu_emu.core.device import Device

HOST = None  # the "stream" of a block the host writes or frees itself: it needs an idle block

FreeLists = dict[int, list[int]]  # size class -> block addresses, reused last-in first-out


class CachingMemAllocator:
    def __init__(self, device: "Device") -> None:
        self.device = device
        self._by_stream: dict[int, FreeLists] = {}
        self._idle: FreeLists = {}
        self._class_of: dict[int, int] = {}   # live block -> its size class
        self.device_allocs = 0                # blocks taken from the device
        self.reuses = 0                       # allocations served from a free list

    def alloc(self, nbytes: int, stream: int | None) -> int:
        """A block of at least ``nbytes`` for a tensor first written on ``stream`` (HOST: by
        the host, now)."""
        cls = size_class(max(nbytes, 1))
        addr = None
        if stream is not HOST:
            addr = _pop(self._by_stream.get(stream), cls)
        if addr is None:
            addr = _pop(self._idle, cls)
        if addr is None:
            addr = self.device.malloc(cls)
            self.device_allocs += 1
        else:
            self.reuses += 1
        self._class_of[addr] = cls
        return addr

    def free(self, addr: int, stream: int | None) -> None:
        """The last user of the block was launched on ``stream`` (HOST: every user is done)."""
        cls = self._class_of.pop(addr)
        lists = self._idle if stream is HOST else self._by_stream.setdefault(stream, {})
        lists.setdefault(cls, []).append(addr)

    def all_idle(self) -> None:
        """Every stream has been synchronized: what they freed is idle now."""
        for lists in self._by_stream.values():
            for cls, addrs in lists.items():
                self._idle.setdefault(cls, []).extend(addrs)
        self._by_stream.clear()

    def live(self) -> frozenset[int]:
        """The blocks in use now (to free what an execution that failed had taken)."""
        return frozenset(self._class_of)

    def free_since(self, before: frozenset[int]) -> None:
        """Every block taken since ``before`` back to the idle lists (the device is drained)."""
        for addr in sorted(set(self._class_of) - before):
            self.free(addr, HOST)

    @property
    def live_blocks(self) -> int:
        return len(self._class_of)

    def release(self) -> None:
        """Return every cached block to the device (blocks still live are the caller's bug)."""
        if self._class_of:
            raise RuntimeError(f"allocator released with {len(self._class_of)} blocks in use")
        self.all_idle()
        for cls in sorted(self._idle):
            for addr in self._idle[cls]:
                self.device.free(addr)
        self._idle.clear()


def _pop(lists: FreeLists | None, cls: int) -> int | None:
    if lists:
        addrs = lists.get(cls)
        if addrs:
            return addrs.pop()
    return None
