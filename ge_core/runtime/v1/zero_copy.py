"""Zero-copy (GE's ZeroCopyOffset): a graph input or output whose buffer the caller may provide.

The memory plan puts graph inputs and outputs in their own region after the feature map, never
shared with another tensor, so the model's tasks may read an input from - and write an output
into - the caller's own device buffer: InitIoNodes records, for each such tensor, its logical
range; every task whose args point into it registers as a user while its addresses are resolved;
binding a caller's buffer rewrites those users' args in place, and no copy is needed.

An output cannot be zero-copy when no task writes it into its own range: a graph input returned
as is, a constant, or a tensor already returned by an earlier output. Such an output is copied
from wherever it lives after the model ran.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ge_core.om.logical_memory import FEATURE_MAP_BASE, VAR_BASE
from ge_core.runtime.model_io import IoDesc

if TYPE_CHECKING:
    from ge_core.runtime.v1.task_info import AddressTaskInfo


@dataclass
class ZeroCopyOffset:
    kind: str                 # "input" or "output"
    io: IoDesc
    internal: int             # the model's own buffer (in its feature map allocation)
    bound: int = 0            # the buffer the users' args point to now
    users: list["AddressTaskInfo"] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.bound = self.bound or self.internal

    def contains(self, logical: int) -> bool:
        start = self.io.logical_addr
        return start <= logical < start + self.io.reserved

    def add_user(self, task_info: "AddressTaskInfo") -> None:
        if task_info not in self.users:
            self.users.append(task_info)

    def bind(self, addr: int) -> bool:
        """Point the users at ``addr`` (the caller's buffer, or ``internal`` again); True if
        any args table was rewritten."""
        if addr == self.bound:
            return False
        self.bound = addr
        for user in self.users:
            user.refresh_args()
        return bool(self.users)


def zero_copy_outputs(inputs: list[IoDesc], outputs: list[IoDesc]) -> list[bool]:
    """Which outputs a task writes into a range of their own (see the module docstring)."""
    taken = [(i.logical_addr, i.logical_addr + i.reserved) for i in inputs]
    result = []
    for out in outputs:
        inside = any(lo <= out.logical_addr < hi for lo, hi in taken)
        result.append(FEATURE_MAP_BASE <= out.logical_addr < VAR_BASE and not inside)
        taken.append((out.logical_addr, out.logical_addr + out.reserved))
    return result
