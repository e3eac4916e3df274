"""Device memory: one real byte buffer, device addresses as ints, a caching allocator.

Two levels, like the runtime's MemoryPool over the driver: the *driver* hands out extents of the
buffer first-fit (coalescing on return); the *pool* keeps freed blocks on free lists by size
class and reuses them without going back to the driver, which it does only when an allocation
would otherwise fail. Every access is checked against the live allocations, so a kernel that
overruns a tensor or touches freed memory is a typed error, not silent corruption of a neighbour.

The buffer is one ``np.zeros`` of the configured capacity: the OS maps its pages lazily, so a
1.5 GiB device costs only what is written.
"""
from __future__ import annotations

import bisect
import itertools
import math
import weakref
from typing import Any

import numpy as np

from npu_emu.base.errors import (InvalidParamError, MemoryAccessError, MemoryFreeError,
                                 OutOfMemoryError)
from npu_emu.base.constant_memory import vouch

DEVICE_BASE = 0x1_0000_0000   # device VAs start high so that small ints are never valid addresses
HOST_BASE = 0x7F00_0000_0000
ALIGNMENT = 512               # GE's MEM_ALIGN_SIZE: every block starts on a 512-byte boundary
HUGE_PAGE = 2 << 20           # blocks above 1 MiB are rounded to 2 MiB pages (fewer size classes)
EPOCHS = itertools.count()    # every memory's epochs from one count: none is ever taken twice


def nbytes_of(shape: tuple[int, ...], dtype: np.dtype) -> int:
    """Bytes of a tensor; a negative dim is refused here, where every view is made, so that a
    negative size can never reach a bounds check (where it would pass) or a slice (where it
    would wrap around to the end of memory)."""
    if any(d < 0 for d in shape):
        raise InvalidParamError(f"shape {list(shape)} has a negative dim")
    return math.prod(shape) * dtype.itemsize   # math.prod: np.prod costs ~4 us per kernel arg


def size_class(size: int) -> int:
    """The pool's size class: 512-byte granules up to 1 MiB, 2 MiB pages above."""
    granule = ALIGNMENT if size <= (1 << 20) else HUGE_PAGE
    return max(granule, -(-size // granule) * granule)


class DeviceMemory:
    def __init__(self, device_id: int, capacity: int) -> None:
        if capacity <= 0 or capacity % ALIGNMENT:
            raise InvalidParamError(f"device memory capacity {capacity} is not a positive "
                                    f"multiple of {ALIGNMENT}")
        self.device_id = device_id
        self.capacity = capacity
        self._buf = reserve(capacity, f"device {device_id}'s memory")
        self._extents: list[tuple[int, int]] = [(0, capacity)]  # driver free list, by offset
        self._pool: dict[int, list[int]] = {}     # size class -> cached block addrs (LIFO)
        self._cached: dict[int, int] = {}         # cached addr -> size class
        self._live: dict[int, int] = {}           # live addr -> requested size
        self._class_of: dict[int, int] = {}       # live addr -> size class
        self._starts: list[int] = []              # sorted live addrs, for range lookups
        # Bumped by every malloc and free (and block marked constant): a view checked against
        # the live allocations stays valid while it is unchanged (kernel tasks keep theirs
        # across runs, with whether their outputs lie in a constant block).
        self.generation = 0
        self._keepers: weakref.WeakSet = weakref.WeakSet()   # who keeps views: see keep_views
        # Blocks a loaded model reads as constants (its weights), and an epoch moved by every
        # write that may reach one: kernels reuse what they derived from a constant while the
        # epoch stays (op_impl/prepared.py), where they would compare its bytes on every call.
        self._constant: set[int] = set()
        self.epoch = next(EPOCHS)
        vouch(self._buf, self)

    def use_buffer(self, buf: np.ndarray) -> None:
        """``buf`` holds this memory's bytes from now on (a snapshot's restore made it): views
        of it are this memory's to vouch for."""
        self._buf = buf
        vouch(buf, self)

    def release(self) -> None:
        """Let go of the reservation: its device's world is discarded (nothing reads it again),
        but the runtime's cycles would hold it until a collection, and a kept view holds the whole
        buffer: each keeper lets go of its views first. Every block goes; what reads it after
        finds nothing allocated."""
        for keeper in list(self._keepers):
            keeper.drop_views()
        self._keepers.clear()
        self._buf = np.zeros(0, np.uint8)
        self.capacity = 0
        self._extents = []
        for kept in (self._pool, self._cached, self._live, self._class_of):
            kept.clear()
        self._starts = []
        self.generation += 1
        self._constant.clear()
        self.constant_written()

    # -- allocation ----------------------------------------------------------------------------
    def malloc(self, size: int) -> int:
        if size <= 0:
            raise InvalidParamError(f"malloc of {size} bytes")
        cls = size_class(size)
        cached = self._pool.get(cls)
        if cached:
            addr = cached.pop()
            del self._cached[addr]
        else:
            offset = self._driver_alloc(cls)
            if offset is None:
                self.empty_cache()
                offset = self._driver_alloc(cls)
            if offset is None:
                largest = max((n for _, n in self._extents), default=0)
                raise OutOfMemoryError(
                    f"device {self.device_id}: cannot allocate {size} bytes "
                    f"(free {self.free_bytes()} of {self.capacity}, largest block {largest})")
            addr = DEVICE_BASE + offset
        self._live[addr] = size
        self._class_of[addr] = cls
        bisect.insort(self._starts, addr)
        self.generation += 1
        return addr

    def free(self, addr: int) -> int:
        """Free the block at ``addr``; returns its size."""
        size = self._live.pop(addr, None)
        if size is None:
            what = "already freed" if addr in self._cached else "not the start of an allocation"
            raise MemoryFreeError(f"free of {addr:#x}: {what}")
        cls = self._class_of.pop(addr)
        del self._starts[bisect.bisect_left(self._starts, addr)]
        self._pool.setdefault(cls, []).append(addr)
        self._cached[addr] = cls
        self.generation += 1
        if addr in self._constant:
            self._constant.discard(addr)
            self.constant_written()
        return size

    def empty_cache(self) -> None:
        """Return every cached block to the driver (the pool's answer to memory pressure)."""
        for addr, cls in sorted(self._cached.items()):
            self._driver_free(addr - DEVICE_BASE, cls)
        self._pool.clear()
        self._cached.clear()

    def _driver_alloc(self, size: int) -> int | None:
        for i, (offset, n) in enumerate(self._extents):
            if n >= size:
                if n == size:
                    del self._extents[i]
                else:
                    self._extents[i] = (offset + size, n - size)
                return offset
        return None

    def _driver_free(self, offset: int, size: int) -> None:
        ext = self._extents
        i = bisect.bisect_left(ext, (offset, 0))
        if i < len(ext) and offset + size == ext[i][0]:   # merge with the next extent
            size += ext[i][1]
            del ext[i]
        if i > 0 and ext[i - 1][0] + ext[i - 1][1] == offset:  # and with the previous one
            offset, size = ext[i - 1][0], ext[i - 1][1] + size
            del ext[i - 1]
            i -= 1
        ext.insert(i, (offset, size))

    def free_bytes(self) -> int:
        return sum(n for _, n in self._extents) + sum(self._cached.values())

    def live_blocks(self) -> list[tuple[int, int]]:
        """(addr, size) of every live allocation, by address."""
        return [(a, self._live[a]) for a in self._starts]

    def block_of(self, addr: int) -> int | None:
        """The start of the live allocation containing ``addr``."""
        i = bisect.bisect_right(self._starts, addr) - 1
        if i >= 0 and addr < self._starts[i] + self._live[self._starts[i]]:
            return self._starts[i]
        return None

    # -- access --------------------------------------------------------------------------------
    def check(self, addr: int, nbytes: int) -> int:
        """Offset into the buffer of [addr, addr+nbytes), which must lie in one live block."""
        if nbytes < 0:
            raise InvalidParamError(f"access [{addr:#x}, +{nbytes}): a negative size")
        i = bisect.bisect_right(self._starts, addr) - 1
        if i >= 0:
            start = self._starts[i]
            size = self._live[start]
            if addr + nbytes <= start + size:
                return addr - DEVICE_BASE
            if addr < start + size:
                raise MemoryAccessError(
                    f"access [{addr:#x}, +{nbytes}) overruns the allocation at {start:#x} "
                    f"of {size} bytes by {addr + nbytes - start - size}")
        for start, cls in self._cached.items():
            if start <= addr < start + cls:
                raise MemoryAccessError(f"access at {addr:#x}: block {start:#x} was freed")
        raise MemoryAccessError(f"access at {addr:#x}: not inside any allocation")

    # -- constants -----------------------------------------------------------------------------
    def mark_constant(self, addr: int) -> None:
        """The live block holding ``addr`` is read as constants (a loaded model's weights):
        from now on every write into it moves the epoch. Views are made again, so that each
        kernel task learns afresh whether its outputs lie in such a block."""
        start = self.block_of(addr)
        if start is not None and start not in self._constant:
            self._constant.add(start)
            self.generation += 1

    def in_constant(self, addr: int) -> bool:
        return bool(self._constant) and self.block_of(addr) in self._constant

    def holds_constant(self, a: np.ndarray, buffer: np.ndarray) -> bool:
        """Whether all of ``a``, a contiguous view of ``buffer`` (as ``view`` makes them), lies
        in one constant block of this memory (``buffer`` is not this memory's after a
        release)."""
        if buffer is not self._buf or not self._constant or not a.flags.c_contiguous:
            return False
        addr = DEVICE_BASE + a.__array_interface__["data"][0] \
            - buffer.__array_interface__["data"][0]
        start = self.block_of(addr)
        return start in self._constant and addr + a.nbytes <= start + self._live[start]

    def wrote(self, addr: int) -> None:
        """Bytes were written at ``addr`` (through a view): the epoch moves if they may be a
        constant's."""
        if self.in_constant(addr):
            self.constant_written()

    def constant_written(self) -> None:
        self.epoch = next(EPOCHS)

    def keep_views(self, keeper: Any) -> None:
        """``keeper`` keeps views of this memory across runs (a kernel task its args table's):
        a release asks it to let go of them (``keeper.drop_views()``)."""
        self._keepers.add(keeper)

    def view(self, addr: int, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        dt = np.dtype(dtype)
        nbytes = nbytes_of(shape, dt)
        offset = self.check(addr, nbytes)
        return self._buf[offset:offset + nbytes].view(dt).reshape(shape)

    def read(self, addr: int, nbytes: int) -> bytes:
        offset = self.check(addr, nbytes)
        return self._buf[offset:offset + nbytes].tobytes()

    def write(self, addr: int, data: bytes | np.ndarray) -> None:
        src = np.frombuffer(data, dtype=np.uint8) if isinstance(data, bytes) else \
            np.ascontiguousarray(data).reshape(-1).view(np.uint8)
        offset = self.check(addr, src.size)
        self._buf[offset:offset + src.size] = src
        self.wrote(addr)

    def memset(self, addr: int, value: int, nbytes: int) -> None:
        offset = self.check(addr, nbytes)
        self._buf[offset:offset + nbytes] = value
        self.wrote(addr)

    def blocks(self) -> list[tuple[int, np.ndarray]]:
        """(addr, a copy of its bytes) of every live and cached block: all the state the
        buffer holds (what a snapshot saves; the rest of the buffer is zeros)."""
        blocks = [(a, self._class_of[a]) for a in self._starts] + sorted(self._cached.items())
        return [(a, self._buf[a - DEVICE_BASE:a - DEVICE_BASE + n].copy()) for a, n in blocks]


class HostMemory:
    """Host buffers the runtime may copy from or to, by host address (pyACL's pointers).

    Addresses are handed out here, not taken from the process, so runs are reproducible and a
    bad pointer is an error rather than a crash. A registered numpy array is shared, not copied.
    """

    def __init__(self) -> None:
        self._next = HOST_BASE
        self._arrays: dict[int, np.ndarray] = {}   # addr -> flat uint8 view
        self._starts: list[int] = []
        # id(array) -> (addr, array): holding the array keeps its id from being reused
        self._by_id: dict[int, tuple[int, np.ndarray]] = {}

    def malloc(self, size: int) -> int:
        if size <= 0:
            raise InvalidParamError(f"host malloc of {size} bytes")
        return self._register(reserve(size, "a host buffer"))

    def register(self, array: np.ndarray) -> int:
        if not array.flags.c_contiguous:
            raise InvalidParamError("numpy_to_ptr needs a C-contiguous array")
        known = self._by_id.get(id(array))
        if known is not None and known[0] in self._arrays:
            return known[0]
        addr = self._register(array.reshape(-1).view(np.uint8))
        self._by_id[id(array)] = (addr, array)
        return addr

    def _register(self, flat: np.ndarray) -> int:
        addr = self._next
        self._next += -(-max(flat.size, 1) // 64) * 64 + 64   # a gap so overruns are caught
        self._arrays[addr] = flat
        self._starts.append(addr)
        return addr

    def free(self, addr: int) -> None:
        if self._arrays.pop(addr, None) is None:
            raise MemoryFreeError(f"host free of {addr:#x}: not a host allocation")
        self._starts.remove(addr)

    def bytes_view(self, addr: int, nbytes: int) -> np.ndarray:
        i = bisect.bisect_right(self._starts, addr) - 1
        if i >= 0 and nbytes >= 0:
            start = self._starts[i]
            flat = self._arrays[start]
            if addr + nbytes <= start + flat.size:
                return flat[addr - start:addr - start + nbytes]
        raise MemoryAccessError(f"host access [{addr:#x}, +{nbytes}) is not inside a host buffer")

    def view(self, addr: int, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        dt = np.dtype(dtype)
        return self.bytes_view(addr, nbytes_of(shape, dt)).view(dt).reshape(shape)

    def is_host(self, addr: int) -> bool:
        return addr >= HOST_BASE


def reserve(nbytes: int, what: str) -> np.ndarray:
    """Zeroed bytes the OS maps lazily, or OutOfMemoryError when the host cannot reserve that
    much address space (rtMallocHost's 207001, not a Python MemoryError)."""
    try:
        return np.zeros(nbytes, dtype=np.uint8)
    except (MemoryError, ValueError) as exc:   # ValueError: past numpy's largest dimension
        raise OutOfMemoryError(f"cannot reserve {nbytes} bytes for {what} on the host: "
                               f"{exc}") from None
