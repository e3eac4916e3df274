"""Memory that vouches for its constants: it says which of its arrays hold a loaded model's
weights, and moves an epoch (to a value no memory ever had) on every write that may reach them.
The device's memory is one (npu_emu/driver/memory.py); a kernel reuses what it derived from
such an array while the epoch stays (op_impl/prepared.py), where it would compare the array's
bytes on every call. The two meet here, below both."""
from __future__ import annotations

import weakref
from typing import Protocol

import numpy as np


class ConstantMemory(Protocol):
    epoch: int

    def holds_constant(self, a: np.ndarray, buffer: np.ndarray) -> bool:
        """Whether all of ``a``, a view of ``buffer``, is constant memory."""
        ...


_OWNERS: dict[int, weakref.ref] = {}   # id of a buffer -> the ConstantMemory it is


def vouch(buffer: np.ndarray, owner: ConstantMemory) -> None:
    """``owner`` answers for the views of ``buffer`` (while both live)."""
    _OWNERS[id(buffer)] = weakref.ref(owner)
    weakref.finalize(buffer, _OWNERS.pop, id(buffer), None)


def owner_of(a: np.ndarray) -> tuple[ConstantMemory, np.ndarray] | None:
    """The memory that answers for the buffer ``a`` is a view of, and that buffer."""
    buffer = a
    while isinstance(buffer.base, np.ndarray):
        buffer = buffer.base
    ref = _OWNERS.get(id(buffer))
    owner = ref() if ref is not None else None
    return None if owner is None else (owner, buffer)
